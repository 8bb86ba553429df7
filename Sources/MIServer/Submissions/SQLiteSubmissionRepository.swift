import Foundation
import MIKit
import GRDB

/// `SubmissionRepository` in SQLite (`DataDirectory/mi-server.sqlite`) through GRDB. The
/// form id is the `submission` table's unique key; every write goes through the pool's single
/// writer, so two uploads of the same id are serialized and the second one finds the first.
/// The statements are `SubmissionSQL`'s, shared with PostgreSQL; the search text is an FTS5
/// table, `submission_text`, whose rowid is the submission's `seq`.
public final class SQLiteSubmissionRepository: SubmissionEngine {
    let pool: DatabasePool
    let sql = SubmissionSQL(dialect: .sqlite)

    public init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        // A 201 promises the submission survives a power cut: every commit is synced.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE submission (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    user TEXT NOT NULL,
                    formName TEXT NOT NULL,
                    uploadedBy TEXT NOT NULL,
                    receivedAt INTEGER NOT NULL
                );
                CREATE TABLE part (
                    submissionID TEXT NOT NULL REFERENCES submission(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    filename TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    PRIMARY KEY (submissionID, position),
                    UNIQUE (submissionID, name)
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            // The summary the office lists, filled by `record` and, for rows of v1, by the
            // start-up backfill (`summarized` = 0 until then). Sort columns are never NULL so a
            // cursor can compare with them.
            try db.execute(sql: """
                ALTER TABLE submission ADD COLUMN summarized INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN templateID TEXT NOT NULL DEFAULT '';
                ALTER TABLE submission ADD COLUMN templateTitle TEXT NOT NULL DEFAULT '';
                ALTER TABLE submission ADD COLUMN templateVersion INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN userDisplayName TEXT;
                ALTER TABLE submission ADD COLUMN submittedAt INTEGER;
                ALTER TABLE submission ADD COLUMN submittedSort INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN answered INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN questions INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN media INTEGER NOT NULL DEFAULT 0;
                CREATE VIRTUAL TABLE submission_text USING fts5(body, tokenize='unicode61 remove_diacritics 2');
                CREATE INDEX submission_unsummarized ON submission(summarized) WHERE summarized = 0;
                """)
            // Every sort alone, and after each equality filter (template, technician), so a
            // page is a walk down one index from the cursor. The upload time rides along in the
            // other sorts' indexes: a date range is checked in the index, not in the table.
            let sorts = ["receivedAt", "submittedSort", "templateTitle", "user", "formName"]
            for column in sorts {
                let key = column == "receivedAt" ? "receivedAt, seq" : "\(column), seq, receivedAt"
                try db.execute(sql: "CREATE INDEX submission_by_\(column) ON submission(\(key))")
                try db.execute(sql: "CREATE INDEX submission_template_\(column) ON submission(templateID, \(key))")
                if column != "user" {
                    try db.execute(sql: "CREATE INDEX submission_user_\(column) ON submission(user, \(key))")
                }
            }
        }
        migrator.registerMigration("v3") { db in
            // Whether `mi simulate` made the form, filled by `summarize`. No backfill: before
            // v3 no server could read a form with a `simulated` event (the action did not
            // exist, so such an upload was refused as an invalid form.json), so every row
            // stored earlier is a real inspection and the default 0 is its true value.
            try db.execute(sql: "ALTER TABLE submission ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v4") { db in
            // The scores the server computed from the answers (a JSON object of key → number
            // or text; NULL when the template names no scorer), filled by `summarize`. Earlier
            // servers ignored a template's "scoring", so a stored form may name a scorer: every
            // row is summarized again from its form.json at the next start.
            try db.execute(sql: """
                ALTER TABLE submission ADD COLUMN scores TEXT;
                UPDATE submission SET summarized = 0;
                """)
        }
        migrator.registerMigration("v5-once-per-user") { db in
            // The submission that holds a user's once-per-user template: the unique key is the
            // rule, so two racing uploads cannot both commit. No backfill: templates could not
            // be once per user before this version.
            try db.execute(sql: """
                CREATE TABLE once_per_user (
                    template_id TEXT NOT NULL,
                    user TEXT NOT NULL,
                    submission_id TEXT NOT NULL UNIQUE REFERENCES submission(id) ON DELETE CASCADE,
                    UNIQUE (template_id, user)
                )
                """)
        }
        migrator.registerMigration("v6-natural-names") { db in
            // Form names sort in natural order (`NaturalOrder.key`, stored beside the name so
            // the sort walks an index); the rows stored before get their key here.
            try db.execute(sql: "ALTER TABLE submission ADD COLUMN formNameSort TEXT NOT NULL DEFAULT ''")
            for row in try Row.fetchAll(db, sql: "SELECT seq, formName FROM submission") {
                let name: String = row["formName"]
                try db.execute(sql: "UPDATE submission SET formNameSort = ? WHERE seq = ?",
                               arguments: [NaturalOrder.key(name), row["seq"] as Int64])
            }
            for prefix in ["submission_by", "submission_template", "submission_user"] {
                try db.execute(sql: "DROP INDEX IF EXISTS \(prefix)_formName")
            }
            try db.execute(sql: "CREATE INDEX submission_by_formNameSort ON submission(formNameSort, seq, receivedAt)")
            try db.execute(sql: "CREATE INDEX submission_template_formNameSort ON submission(templateID, formNameSort, seq, receivedAt)")
            try db.execute(sql: "CREATE INDEX submission_user_formNameSort ON submission(user, formNameSort, seq, receivedAt)")
        }
        migrator.registerMigration("v7-snake-case") { db in
            // One naming on both engines: PostgreSQL's (snake case; `user` is reserved there, so
            // the technician's column is `technician`). The indexes take the same names too.
            let renames = [
                ("submission", "user", "technician"), ("submission", "formName", "form_name"),
                ("submission", "formNameSort", "form_name_sort"), ("submission", "uploadedBy", "uploaded_by"),
                ("submission", "receivedAt", "received_at"), ("submission", "templateID", "template_id"),
                ("submission", "templateTitle", "template_title"), ("submission", "templateVersion", "template_version"),
                ("submission", "userDisplayName", "user_display_name"), ("submission", "submittedAt", "submitted_at"),
                ("submission", "submittedSort", "submitted_sort"), ("part", "submissionID", "submission_id"),
                ("once_per_user", "user", "technician"),
            ]
            for (table, old, new) in renames {
                try db.execute(sql: "ALTER TABLE \(table) RENAME COLUMN \(old) TO \(new)")
            }
            let sortIndexes = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'submission' AND sql IS NOT NULL
                    AND name <> 'submission_unsummarized'
                """)
            for name in sortIndexes { try db.execute(sql: "DROP INDEX \"\(name)\"") }
            for statement in SubmissionSQL.sortIndexes(SubmissionSQL.sortColumns) { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v8-review-state") { db in
            for statement in SubmissionSQL.reviewStateSchema { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v9-versions") { db in
            for statement in SubmissionSQL.versionSchema { try db.execute(sql: statement) }
        }
        return migrator
    }

    // MARK: - Statements

    func rows(_ statement: SQLText) async throws -> [SQLRow] {
        try await pool.read { db in try Self.rows(db, statement) }
    }

    func execute(_ statements: [SQLText]) async throws {
        try await pool.write { db in try Self.execute(db, statements) }
    }

    private static func rows(_ db: Database, _ statement: SQLText) throws -> [SQLRow] {
        try Row.fetchAll(db, sql: statement.text { _ in "?" }, arguments: arguments(statement)).map { row in
            var values: SQLRow = [:]
            for (column, value) in row {
                switch value.storage {
                case .null: values[column] = .null
                case .int64(let number): values[column] = .integer(number)
                case .double(let number): values[column] = .double(number)
                case .string(let text): values[column] = .text(text)
                case .blob(let data): values[column] = .text(String(decoding: data, as: UTF8.self))
                }
            }
            return values
        }
    }

    private static func execute(_ db: Database, _ statements: [SQLText]) throws {
        for statement in statements {
            try db.execute(sql: statement.text { _ in "?" }, arguments: arguments(statement))
        }
    }

    private static func arguments(_ statement: SQLText) -> StatementArguments {
        StatementArguments(statement.values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .integer(let number): return number
            case .text(let text): return text
            case .bool(let flag): return flag
            case .double(let number): return number
            case .null: return nil
            }
        })
    }

    private static func receipt(_ db: Database, _ sql: SubmissionSQL, id: FormID) throws -> Receipt? {
        let statements = sql.receipt(id: id)
        guard let row = try rows(db, statements.row).first else { return nil }
        return try SubmissionSQL.receipt(row: row, parts: try rows(db, statements.parts))
    }

    private static func holder(_ db: Database, _ sql: SubmissionSQL, _ form: Form) throws -> SubmissionSummary? {
        guard let once = SubmissionSQL.oncePerUserKey(form) else { return nil }
        return try rows(db, sql.holder(templateID: once.templateID, user: once.user)).first.map(SubmissionSQL.summary)
    }

    // MARK: - Writing

    public func record(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                       removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        let sql = self.sql
        do {
            return try await pool.write { db in
                if let existing = try Self.receipt(db, sql, id: receipt.id) { return .existing(existing) }
                if let first = try Self.holder(db, sql, form) { return .taken(first) }
                try placeFiles()
                try Self.execute(db, try sql.insert(receipt, form: form))
                return .recorded(receipt)
            }
        } catch {
            let id = receipt.id
            try? await pool.writeWithoutTransaction { db in
                if try Self.receipt(db, sql, id: id) == nil { removeFiles() }
            }
            // Another writer (a second server on the same data) committed the id first…
            if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                if let existing = try await self.receipt(id: receipt.id) { return .existing(existing) }
                // …or the user's other form of a once-per-user template.
                if let first = try await pool.read({ db in try Self.holder(db, sql, form) }) { return .taken(first) }
            }
            throw error
        }
    }

    public func supersede(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                          removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        let sql = self.sql
        do {
            return try await pool.write { db in
                guard let current = try Self.receipt(db, sql, id: receipt.id), current.storedVersion == receipt.storedVersion - 1 else {
                    return .existing(try Self.receipt(db, sql, id: receipt.id) ?? receipt)
                }
                try placeFiles()
                try Self.execute(db, try sql.supersede(current, with: receipt, form: form, at: receipt.receivedAt))
                return .recorded(receipt)
            }
        } catch {
            let version = receipt.storedVersion, id = receipt.id
            try? await pool.writeWithoutTransaction { db in
                if (try Self.receipt(db, sql, id: id)?.storedVersion ?? 0) < version { removeFiles() }
            }
            throw error
        }
    }

    func restore(_ receipts: [Receipt], form: @escaping @Sendable (Receipt) throws -> Form, also: [SQLText]) async throws {
        let sql = self.sql
        try await pool.write { db in
            guard try Self.rows(db, SubmissionSQL.count).first?.integer("n") == 0 else {
                throw BackupError.targetNotEmpty("the SQLite database: it holds submissions")
            }
            try Self.execute(db, try sql.restore(receipts, form: form) + also)
        }
    }

    func discardUnrecorded(id: FormID, version: Int, remove: @escaping @Sendable () -> Void) async throws -> Bool {
        let sql = self.sql
        return try await pool.write { db in
            guard (try Self.receipt(db, sql, id: id)?.storedVersion ?? 0) < version else { return false }
            remove()
            return true
        }
    }

    func snapshot(scratch: URL, also: [SQLText]) async throws -> (receipts: [Receipt], rows: [[SQLRow]]) {
        let pool = self.pool
        return try await Blocking.run {
            let copy = try DatabaseQueue(path: scratch.path)
            // One step: the source's read lock is held for the copy's moment only, and writers
            // (WAL mode) are never blocked by it.
            try pool.backup(to: copy)
            let superseded = SubmissionSQL(dialect: .sqlite).superseded(id: nil)
            return try copy.read { db in
                let receipts = try SubmissionSQL.receipts(rows: try Self.rows(db, SubmissionSQL.allReceipts),
                                                          parts: try Self.rows(db, SubmissionSQL.allParts))
                    + SubmissionSQL.supersededReceipts(rows: try Self.rows(db, superseded.rows),
                                                       parts: try Self.rows(db, superseded.parts))
                return (receipts, try also.map { try Self.rows(db, $0) })
            }
        }
    }
}
