import Foundation
import MIKit
import GRDB

/// `SubmissionRepository` in SQLite (`DataDirectory/mi-server.sqlite`) through GRDB. The
/// form id is the `submission` table's unique key; every write goes through the pool's single
/// writer, so two uploads of the same id are serialized and the second one finds the first.
public final class SQLiteSubmissionRepository: SubmissionRepository {
    private let pool: DatabasePool

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
        return migrator
    }

    public func record(_ receipt: Receipt, placeFiles: @escaping @Sendable () throws -> Void,
                       removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        do {
            return try await pool.write { db in
                if let existing = try Self.fetch(db, id: receipt.id) { return .existing(existing) }
                try placeFiles()
                try Self.insert(db, receipt)
                return .recorded(receipt)
            }
        } catch {
            let id = receipt.id
            try? await pool.writeWithoutTransaction { db in
                if try Self.fetch(db, id: id) == nil { removeFiles() }
            }
            // Another writer (a second server on the same data) committed the id first.
            if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE,
               let existing = try await self.receipt(id: receipt.id) {
                return .existing(existing)
            }
            throw error
        }
    }

    public func receipt(id: String) async throws -> Receipt? {
        try await pool.read { db in try Self.fetch(db, id: id) }
    }

    public func receipts() async throws -> [Receipt] {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM submission ORDER BY receivedAt DESC, seq DESC")
            return try rows.map { try Self.receipt(db, row: $0) }
        }
    }

    public func submissionIDs() async throws -> Set<String> {
        try await pool.read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM submission")) }
    }

    // MARK: - Rows

    private static func fetch(_ db: Database, id: String) throws -> Receipt? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM submission WHERE id = ?", arguments: [id]) else {
            return nil
        }
        return try receipt(db, row: row)
    }

    private static func receipt(_ db: Database, row: Row) throws -> Receipt {
        let id: String = row["id"]
        let parts = try Row.fetchAll(db, sql: "SELECT * FROM part WHERE submissionID = ? ORDER BY position",
                                     arguments: [id]).map { part in
            Receipt.Part(name: part["name"], filename: part["filename"], size: part["size"], sha256: part["sha256"])
        }
        let seconds: Int64 = row["receivedAt"]
        return Receipt(id: id, user: row["user"], formName: row["formName"], uploadedBy: row["uploadedBy"],
                       receivedAt: Date(timeIntervalSince1970: TimeInterval(seconds)), parts: parts)
    }

    private static func insert(_ db: Database, _ receipt: Receipt) throws {
        try db.execute(sql: """
            INSERT INTO submission (id, user, formName, uploadedBy, receivedAt) VALUES (?, ?, ?, ?, ?)
            """, arguments: [receipt.id, receipt.user, receipt.formName, receipt.uploadedBy,
                             Int64(receipt.receivedAt.timeIntervalSince1970.rounded(.down))])
        for (position, part) in receipt.parts.enumerated() {
            try db.execute(sql: """
                INSERT INTO part (submissionID, position, name, filename, size, sha256) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [receipt.id, position, part.name, part.filename, part.size, part.sha256])
        }
    }
}
