import Foundation
import Logging
import MIKit
import NIOSSL
import PostgresNIO

/// `AuditStore` in the PostgreSQL database of the submissions, through the repository's client.
/// Its tables come from its own migrations, recorded in `audit_migration` under an advisory
/// lock of its own, so they never clash with the repository's. Every append locks the head
/// row (`SELECT … FOR UPDATE`): appends from every server on the database form one chain.
final class PostgresAuditStore: AuditStore {
    /// Kept: its client runs while it lives.
    private let repository: PostgresSubmissionRepository
    private var client: PostgresClient { repository.client }
    private let logger: Logger

    init(repository: PostgresSubmissionRepository, logger: Logger) async throws {
        self.repository = repository
        self.logger = logger
        try await migrate()
    }

    /// Applied in order, each once; never edit one that shipped.
    private static let migrations: [(name: String, sql: [String])] = [
        ("audit-v1", [
            """
            CREATE TABLE audit_event (
                seq BIGINT PRIMARY KEY,
                at BIGINT NOT NULL,
                actor TEXT NOT NULL,
                address TEXT NOT NULL,
                action TEXT NOT NULL,
                subject TEXT NOT NULL,
                detail TEXT NOT NULL,
                prev_sha256 TEXT NOT NULL,
                sha256 TEXT NOT NULL
            )
            """,
            "CREATE INDEX audit_event_by_actor ON audit_event(actor, seq)",
            "CREATE INDEX audit_event_by_action ON audit_event(action, seq)",
            "CREATE INDEX audit_event_by_at ON audit_event(at, seq)",
            "CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL, sha256 TEXT NOT NULL)",
            "INSERT INTO audit_head (id, seq, sha256) VALUES (1, 0, '\(AuditRecord.genesis)')",
        ]),
    ]

    /// Serializes the audit migrations between servers starting at once ("mi_aud").
    private static let migrationLock: Int64 = 0x6D69_5F61_7564

    private func migrate() async throws {
        try await repository.transaction { connection in
            try await PostgresMigrations.apply(Self.migrations, table: "audit_migration", lock: Self.migrationLock,
                                               on: connection, logger: logger)
        }
    }

    func append(_ entry: AuditEntry, at date: Date) async throws -> AuditRecord {
        try await repository.transaction { connection in
            var head: (Int64, String)?
            for try await row in try await connection.query("SELECT seq, sha256 FROM audit_head WHERE id = 1 FOR UPDATE",
                                                            logger: logger).decode((Int64, String).self) {
                head = row
            }
            guard let head else { throw AuditStoreError.noHead }
            let event = AuditRecord.make(entry, at: date, after: head)
            try await connection.query("""
                INSERT INTO audit_event (seq, at, actor, address, action, subject, detail, prev_sha256, sha256)
                VALUES (\(event.seq), \(event.atMilliseconds), \(event.actor), \(event.address), \(event.action),
                        \(event.subject), \(event.detail), \(event.prevSHA256), \(event.sha256))
                """, logger: logger)
            try await connection.query("UPDATE audit_head SET seq = \(event.seq), sha256 = \(event.sha256) WHERE id = 1",
                                       logger: logger)
            return event
        }
    }

    private static let columns = "seq, at, actor, address, action, subject, detail, prev_sha256, sha256"

    func events(_ query: AuditQuery) async throws -> [AuditRecord] {
        var sql = PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM audit_event WHERE true")
        var text = sql.sql
        var bindings = PostgresBindings()
        func and(_ condition: String, _ value: some PostgresDynamicTypeEncodable) {
            bindings.append(value)
            text += " AND \(condition) $\(bindings.count)"
        }
        if let actor = query.actor { and("actor =", actor) }
        if let action = query.action { and("action =", action.rawValue) }
        if let from = query.fromMilliseconds { and("at >=", from) }
        if let to = query.toMilliseconds { and("at <", to) }
        if let before = query.before { and("seq <", before) }
        text += " ORDER BY seq DESC LIMIT \(query.limit + 1)"
        sql = PostgresQuery(unsafeSQL: text, binds: bindings)
        var events: [AuditRecord] = []
        for try await row in try await client.query(sql, logger: logger) {
            events.append(try Self.event(row))
        }
        return events
    }

    func verify() async throws -> AuditVerification {
        // The head first: every row up to it was committed with it, and later appends only add
        // rows after it, so the rows read next are the ones the head vouches for.
        var head: (Int64, String)?
        for try await row in try await client.query("SELECT seq, sha256 FROM audit_head WHERE id = 1",
                                                    logger: logger).decode((Int64, String).self) {
            head = row
        }
        guard let head else { return .broken(seq: 1, reason: "the log's head row is missing") }
        var check = AuditChainCheck()
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM audit_event WHERE seq <= $1 ORDER BY seq",
                                                        binds: Self.bindings(head.0)), logger: logger)
        for try await row in rows {
            if let verdict = check.check(try Self.event(row)) { return verdict }
        }
        return check.finish(head: head)
    }

    private static func bindings(_ value: Int64) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(value)
        return bindings
    }

    private static func event(_ row: PostgresRow) throws -> AuditRecord {
        let (seq, at, actor, address, action, subject, detail, prev, sha) =
            try row.decode((Int64, Int64, String, String, String, String, String, String, String).self)
        return AuditRecord(seq: seq, atMilliseconds: at, actor: actor, address: address, action: action, subject: subject,
                          detail: detail, prevSHA256: prev, sha256: sha)
    }
}
