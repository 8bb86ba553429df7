import Foundation
import Logging
import MIKit
import NIOSSL
import PostgresNIO

/// `SubmissionRepository` in PostgreSQL (`Server.Database` = `postgres://…`) through postgres-nio,
/// for several mi-servers on one database. The form id is the `submission` table's unique key;
/// `record` holds a transaction-scoped advisory lock on the id (and on the once-per-user key),
/// so two uploads of one id, from this process or another server, are serialized and the second
/// one finds the first.
///
/// The statements are `SubmissionSQL`'s, shared with SQLite, on the same columns. Text sort
/// columns use the "C" collation, so the order (and a cursor) does not depend on the database's
/// locale. The search text is kept folded (lowercase, no diacritics) in a `tsvector` of the
/// `simple` configuration, matched by word prefix like SQLite's FTS5.
public final class PostgresSubmissionRepository: SubmissionEngine {
    let sql = SubmissionSQL(dialect: .postgres)
    let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger

    /// Connects (the pool's connections open as queries need them) and brings the schema up to
    /// date. Throws when the database cannot be reached or a migration fails.
    public init(location: DatabaseLocation.Postgres, password: String?, logger: Logger) async throws {
        var tls: TLSConfiguration?
        if location.requireTLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile = location.caFile { configuration.trustRoots = .file(caFile) }
            tls = configuration
        }
        // One connection first: the pool retries a failing connection for a minute before it
        // gives up, while a wrong password, an unknown certificate or a closed port should
        // stop the start at once, with PostgreSQL's own reason.
        let probe = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: password,
                                 database: location.database,
                                 tls: try tls.map { .require(try NIOSSLContext(configuration: $0)) } ?? .disable),
            id: 0, logger: logger)
        try await probe.close()
        let configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: password, database: location.database,
                                                         tls: tls.map { .require($0) } ?? .disable)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
        do {
            try await migrate()
        } catch {
            runner.cancel()
            throw error
        }
    }

    deinit { runner.cancel() }

    /// PostgreSQL's own reason for `error` (`password authentication failed for user "mi"`),
    /// or the connection's (refused, certificate not trusted); postgres-nio's description hides both.
    public static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return String(describing: underlying) }
        return "\(error.code)"
    }

    // MARK: - Migrations

    /// Applied in order, each once, recorded in `mi_migration`; never edit one that shipped.
    private static let migrations: [(name: String, sql: [String])] = [
        ("v1", [
            """
            CREATE TABLE submission (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                technician TEXT COLLATE "C" NOT NULL,
                form_name TEXT COLLATE "C" NOT NULL,
                uploaded_by TEXT NOT NULL,
                received_at BIGINT NOT NULL,
                summarized BOOLEAN NOT NULL DEFAULT FALSE,
                template_id TEXT NOT NULL DEFAULT '',
                template_title TEXT COLLATE "C" NOT NULL DEFAULT '',
                template_version BIGINT NOT NULL DEFAULT 0,
                user_display_name TEXT,
                submitted_at BIGINT,
                submitted_sort BIGINT NOT NULL DEFAULT 0,
                answered BIGINT NOT NULL DEFAULT 0,
                questions BIGINT NOT NULL DEFAULT 0,
                media BIGINT NOT NULL DEFAULT 0,
                simulated BOOLEAN NOT NULL DEFAULT FALSE,
                scores TEXT,
                search TSVECTOR NOT NULL DEFAULT ''::tsvector
            )
            """,
            """
            CREATE TABLE part (
                submission_id TEXT NOT NULL REFERENCES submission(id) ON DELETE CASCADE,
                position BIGINT NOT NULL,
                name TEXT NOT NULL,
                filename TEXT NOT NULL,
                size BIGINT NOT NULL,
                sha256 TEXT NOT NULL,
                PRIMARY KEY (submission_id, position),
                UNIQUE (submission_id, name)
            )
            """,
            """
            CREATE TABLE once_per_user (
                template_id TEXT NOT NULL,
                technician TEXT NOT NULL,
                submission_id TEXT NOT NULL UNIQUE REFERENCES submission(id) ON DELETE CASCADE,
                UNIQUE (template_id, technician)
            )
            """,
            "CREATE INDEX submission_unsummarized ON submission(seq) WHERE NOT summarized",
            "CREATE INDEX submission_search ON submission USING GIN (search)",
        ] + SubmissionSQL.sortIndexes(["received_at", "submitted_sort", "template_title", "technician", "form_name"])),
        // Form names sort in natural order (`NaturalOrder.key`, kept beside the name); rows stored
        // before get their key in `migrate`, in the same transaction.
        ("v2-natural-names", [
            "ALTER TABLE submission ADD COLUMN form_name_sort TEXT COLLATE \"C\" NOT NULL DEFAULT ''",
            "DROP INDEX IF EXISTS submission_by_form_name",
            "DROP INDEX IF EXISTS submission_template_form_name",
            "DROP INDEX IF EXISTS submission_user_form_name",
            "CREATE INDEX submission_by_form_name_sort ON submission(form_name_sort, seq, received_at)",
            "CREATE INDEX submission_template_form_name_sort ON submission(template_id, form_name_sort, seq, received_at)",
            "CREATE INDEX submission_user_form_name_sort ON submission(technician, form_name_sort, seq, received_at)",
        ]),
        ("v3-review-state", SubmissionSQL.reviewStateSchema),
        ("v4-versions", SubmissionSQL.versionSchema),
    ]

    /// The advisory lock key that serializes migrations between servers starting at once.
    private static let migrationLock: Int64 = 0x6D69_5F6D_6967  // "mi_mig"

    private func migrate() async throws {
        try await transaction { connection in
            try await PostgresMigrations.apply(Self.migrations, table: "mi_migration", lock: Self.migrationLock,
                                               on: connection, logger: logger)
            // The natural-order key is computed here, not in SQL: one rule (MIKit's) for both engines.
            var unkeyed: [(Int64, String)] = []
            for try await row in try await connection.query(
                "SELECT seq, form_name FROM submission WHERE form_name_sort = '' AND form_name <> ''", logger: logger
            ).decode((Int64, String).self) {
                unkeyed.append(row)
            }
            for (seq, name) in unkeyed {
                try await connection.query("UPDATE submission SET form_name_sort = \(NaturalOrder.key(name)) WHERE seq = \(seq)",
                                           logger: logger)
            }
        }
    }

    // MARK: - Statements

    func rows(_ statement: SQLText) async throws -> [SQLRow] {
        try await Self.rows(try await client.query(Self.query(statement), logger: logger))
    }

    func execute(_ statements: [SQLText]) async throws {
        let logger = self.logger
        try await transaction { connection in
            for statement in statements { try await connection.query(Self.query(statement), logger: logger) }
        }
    }

    private static func rows(_ connection: PostgresConnection, _ statement: SQLText, logger: Logger) async throws -> [SQLRow] {
        try await rows(try await connection.query(query(statement), logger: logger))
    }

    private static func rows(_ sequence: PostgresRowSequence) async throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for try await row in sequence {
            var values: SQLRow = [:]
            for cell in row { values[cell.columnName] = try value(cell) }
            rows.append(values)
        }
        return rows
    }

    /// The columns' types in these schemas: BIGINT, BOOLEAN, DOUBLE PRECISION and text.
    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        if cell.bytes == nil { return .null }
        if [.int2, .int4, .int8].contains(cell.dataType) { return .integer(try cell.decode(Int64.self)) }
        if cell.dataType == .bool { return .bool(try cell.decode(Bool.self)) }
        if [.float4, .float8].contains(cell.dataType) { return .double(try cell.decode(Double.self)) }
        return .text(try cell.decode(String.self))
    }

    private static func query(_ statement: SQLText) -> PostgresQuery {
        var binds = PostgresBindings()
        for value in statement.values {
            switch value {
            case .integer(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .bool(let flag): binds.append(flag)
            case .double(let number): binds.append(number)
            case .null: binds.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: statement.text { "$\($0)" }, binds: binds)
    }

    private static func receipt(_ connection: PostgresConnection, _ sql: SubmissionSQL, id: FormID,
                                logger: Logger) async throws -> Receipt? {
        let statements = sql.receipt(id: id)
        guard let row = try await rows(connection, statements.row, logger: logger).first else { return nil }
        return try SubmissionSQL.receipt(row: row, parts: try await rows(connection, statements.parts, logger: logger))
    }

    /// Runs `body` in a transaction (committed when it returns, rolled back when it throws);
    /// throws `body`'s own error, not postgres-nio's wrapper, so callers can tell what failed.
    /// The review and audit stores beside the repository run theirs here too.
    func transaction<Result>(_ body: (PostgresConnection) async throws -> sending Result) async throws
        -> sending Result {
        do {
            return try await client.withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let cause = error.closureError ?? error.beginError ?? error.commitError { throw cause }
            throw error
        }
    }

    /// Waits for, then holds until the transaction ends, the advisory lock named by `key`.
    private static func lock(_ connection: PostgresConnection, _ key: String, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
    }

    // MARK: - Writing

    public func record(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                       removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        let sql = self.sql, logger = self.logger
        do {
            return try await transaction { connection in
                try await Self.lock(connection, receipt.id.description, logger: logger)
                if let existing = try await Self.receipt(connection, sql, id: receipt.id, logger: logger) {
                    return .existing(existing)
                }
                if let once = SubmissionSQL.oncePerUserKey(form) {
                    try await Self.lock(connection, "once-per-user\u{1F}\(once.templateID)\u{1F}\(once.user)", logger: logger)
                    let holder = sql.holder(templateID: once.templateID, user: once.user)
                    if let first = try await Self.rows(connection, holder, logger: logger).first {
                        return .taken(try SubmissionSQL.summary(first))
                    }
                }
                try placeFiles()
                for statement in try sql.insert(receipt, form: form) {
                    try await connection.query(Self.query(statement), logger: logger)
                }
                return .recorded(receipt)
            }
        } catch {
            // The files go only while no committed row lists them, under the same lock.
            let id = receipt.id
            try? await transaction { connection in
                try await Self.lock(connection, id.description, logger: logger)
                if try await Self.receipt(connection, sql, id: id, logger: logger) == nil { removeFiles() }
            }
            throw error
        }
    }

    public func supersede(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                          removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        let sql = self.sql, logger = self.logger
        let id = receipt.id, version = receipt.storedVersion
        do {
            return try await transaction { connection in
                try await Self.lock(connection, id.description, logger: logger)
                guard let current = try await Self.receipt(connection, sql, id: id, logger: logger),
                      current.storedVersion == version - 1 else {
                    return .existing(try await Self.receipt(connection, sql, id: id, logger: logger) ?? receipt)
                }
                try placeFiles()
                for statement in try sql.supersede(current, with: receipt, form: form, at: receipt.receivedAt) {
                    try await connection.query(Self.query(statement), logger: logger)
                }
                return .recorded(receipt)
            }
        } catch {
            try? await transaction { connection in
                try await Self.lock(connection, id.description, logger: logger)
                let stored = try await Self.receipt(connection, sql, id: id, logger: logger)
                if (stored?.storedVersion ?? 0) < version { removeFiles() }
            }
            throw error
        }
    }

    func restore(_ receipts: [Receipt], form: @escaping @Sendable (Receipt) throws -> Form, also: [SQLText]) async throws {
        let sql = self.sql, logger = self.logger
        try await transaction { connection in
            try await connection.query("LOCK TABLE submission IN EXCLUSIVE MODE", logger: logger)
            guard try await Self.rows(connection, SubmissionSQL.count, logger: logger).first?.integer("n") == 0 else {
                throw BackupError.targetNotEmpty("the PostgreSQL database: it holds submissions")
            }
            for statement in try sql.restore(receipts, form: form) + also {
                try await connection.query(Self.query(statement), logger: logger)
            }
        }
    }

    func discardUnrecorded(id: FormID, version: Int, remove: @escaping @Sendable () -> Void) async throws -> Bool {
        let sql = self.sql, logger = self.logger
        return try await transaction { connection in
            try await Self.lock(connection, id.description, logger: logger)
            guard (try await Self.receipt(connection, sql, id: id, logger: logger)?.storedVersion ?? 0) < version else { return false }
            remove()
            return true
        }
    }

    func snapshot(scratch: URL, also: [SQLText]) async throws -> (receipts: [Receipt], rows: [[SQLRow]]) {
        let logger = self.logger
        return try await client.withConnection { connection in
            // The isolation pg_dump uses: every query below sees the database at one instant,
            // and nothing another server does waits for it.
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            do {
                let parts = try await Self.rows(connection, SubmissionSQL.allParts, logger: logger)
                let rows = try await Self.rows(connection, SubmissionSQL.allReceipts, logger: logger)
                let superseded = SubmissionSQL(dialect: .postgres).superseded(id: nil)
                let earlierParts = try await Self.rows(connection, superseded.parts, logger: logger)
                let earlier = try await Self.rows(connection, superseded.rows, logger: logger)
                var more: [[SQLRow]] = []
                for statement in also { more.append(try await Self.rows(connection, statement, logger: logger)) }
                try await connection.query("COMMIT", logger: logger)
                return (try SubmissionSQL.receipts(rows: rows, parts: parts)
                    + SubmissionSQL.supersededReceipts(rows: earlier, parts: earlierParts), more)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
