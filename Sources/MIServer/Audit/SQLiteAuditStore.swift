import Foundation
import GRDB
import MIKit

/// `AuditStore` in the SQLite database of the submissions (`DataDirectory/mi-server.sqlite`),
/// through the repository's pool. Its tables come from its own migrations ("audit-…"), recorded
/// in the same `grdb_migrations` table as the repository's but never clashing with them.
final class SQLiteAuditStore: AuditStore {
    private let pool: DatabasePool

    init(pool: DatabasePool) throws {
        self.pool = pool
        try Self.migrator.migrate(pool)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("audit-v1") { db in
            try db.execute(sql: """
                CREATE TABLE audit_event (
                    seq INTEGER PRIMARY KEY,
                    at INTEGER NOT NULL,
                    actor TEXT NOT NULL,
                    address TEXT NOT NULL,
                    action TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    detail TEXT NOT NULL,
                    prev_sha256 TEXT NOT NULL,
                    sha256 TEXT NOT NULL
                );
                CREATE INDEX audit_event_by_actor ON audit_event(actor, seq);
                CREATE INDEX audit_event_by_action ON audit_event(action, seq);
                CREATE INDEX audit_event_by_at ON audit_event(at, seq);
                CREATE TABLE audit_head (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    seq INTEGER NOT NULL,
                    sha256 TEXT NOT NULL
                );
                """)
            try db.execute(sql: "INSERT INTO audit_head (id, seq, sha256) VALUES (1, 0, ?)", arguments: [AuditRecord.genesis])
        }
        return migrator
    }

    func append(_ entry: AuditEntry, at date: Date) async throws -> AuditRecord {
        // The pool's one writer (and SQLite's write lock between processes) serializes appends.
        try await pool.write { db in
            guard let head = try Row.fetchOne(db, sql: "SELECT seq, sha256 FROM audit_head WHERE id = 1") else {
                throw AuditStoreError.noHead
            }
            let event = AuditRecord.make(entry, at: date, after: (head["seq"], head["sha256"]))
            try db.execute(sql: """
                INSERT INTO audit_event (seq, at, actor, address, action, subject, detail, prev_sha256, sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [event.seq, event.atMilliseconds, event.actor, event.address, event.action, event.subject,
                                 event.detail, event.prevSHA256, event.sha256])
            try db.execute(sql: "UPDATE audit_head SET seq = ?, sha256 = ? WHERE id = 1", arguments: [event.seq, event.sha256])
            return event
        }
    }

    func events(_ query: AuditQuery) async throws -> [AuditRecord] {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let actor = query.actor { conditions.append("actor = ?"); arguments += [actor] }
        if let action = query.action { conditions.append("action = ?"); arguments += [action.rawValue] }
        if let from = query.fromMilliseconds { conditions.append("at >= ?"); arguments += [from] }
        if let to = query.toMilliseconds { conditions.append("at < ?"); arguments += [to] }
        if let before = query.before { conditions.append("seq < ?"); arguments += [before] }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM audit_event \(filter) ORDER BY seq DESC LIMIT \(query.limit + 1)"
        let bound = arguments
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map(Self.event)
        }
    }

    func verify() async throws -> AuditVerification {
        // One read transaction: a snapshot, whatever the server appends meanwhile.
        try await pool.read { db in
            guard let head = try Row.fetchOne(db, sql: "SELECT seq, sha256 FROM audit_head WHERE id = 1") else {
                return .broken(seq: 1, reason: "the log's head row is missing")
            }
            let last: Int64 = head["seq"]
            var check = AuditChainCheck()
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM audit_event WHERE seq <= ? ORDER BY seq", arguments: [last])
            while let row = try rows.next() {
                if let verdict = check.check(Self.event(row)) { return verdict }
            }
            return check.finish(head: (last, head["sha256"]))
        }
    }

    private static func event(_ row: Row) -> AuditRecord {
        AuditRecord(seq: row["seq"], atMilliseconds: row["at"], actor: row["actor"], address: row["address"], action: row["action"],
                   subject: row["subject"], detail: row["detail"], prevSHA256: row["prev_sha256"], sha256: row["sha256"])
    }
}

enum AuditStoreError: Error, LocalizedError {
    case noHead

    var errorDescription: String? {
        switch self {
        case .noHead: return "the audit log's head row (audit_head) is missing — run `mi-server audit verify` and restore the database"
        }
    }
}
