import Foundation
import GRDB
import MIKit

/// `ReviewStore` in the SQLite database of the submissions, through the repository's pool.
/// Its migrations are registered under identifiers starting with `review-`, beside the
/// repository's in `grdb_migrations`.
struct SQLiteReviewStore: ReviewStore {
    let pool: DatabasePool

    init(pool: DatabasePool) throws {
        self.pool = pool
        try Self.migrator.migrate(pool)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("review-v1") { db in
            try db.execute(sql: """
                CREATE TABLE review_event (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    submission_id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    "by" TEXT NOT NULL,
                    "at" REAL NOT NULL,
                    note TEXT
                );
                CREATE INDEX review_event_by_submission ON review_event(submission_id, seq);
                CREATE TABLE send_back (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    submission_id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    "by" TEXT NOT NULL,
                    "at" REAL NOT NULL,
                    note TEXT,
                    flags TEXT NOT NULL,
                    "open" INTEGER NOT NULL
                );
                CREATE UNIQUE INDEX send_back_open ON send_back(submission_id) WHERE "open" = 1;
                """)
        }
        return migrator
    }

    func events(of id: FormID) async throws -> [ReviewEvent] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT state, "by", "at", note FROM review_event WHERE submission_id = ? ORDER BY seq
                """, arguments: [id.description]).map { row in
                let state: String = row["state"]
                guard let reviewState = ReviewState(rawValue: state) else { throw ReviewStoreCorruption.state(state, submission: id.description) }
                return ReviewEvent(reviewState: reviewState, by: row["by"], at: Date(timeIntervalSince1970: row["at"]), note: row["note"])
            }
        }
    }

    func record(_ event: ReviewEvent, submission id: FormID, version: Int) async throws {
        try await pool.write { db in
            try Self.insert(db, event, submission: id, version: version)
            if event.reviewState != .hasIssues {
                try db.execute(sql: "UPDATE send_back SET \"open\" = 0 WHERE submission_id = ? AND \"open\" = 1", arguments: [id.description])
            }
        }
    }

    func sendBack(_ sendBack: StoredSendBack) async throws {
        let flags = try ReviewFlagsColumn.encode(sendBack.flags)
        try await pool.write { db in
            try db.execute(sql: "UPDATE send_back SET \"open\" = 0 WHERE submission_id = ? AND \"open\" = 1",
                           arguments: [sendBack.submissionID.description])
            try db.execute(sql: """
                INSERT INTO send_back (submission_id, version, "by", "at", note, flags, "open") VALUES (?, ?, ?, ?, ?, ?, 1)
                """, arguments: [sendBack.submissionID.description, sendBack.version, sendBack.by, sendBack.at.timeIntervalSince1970,
                                 sendBack.note, flags])
            try Self.insert(db, ReviewEvent(reviewState: .hasIssues, by: sendBack.by, at: sendBack.at, note: sendBack.note),
                            submission: sendBack.submissionID, version: sendBack.version)
        }
    }

    func openSendBack(of id: FormID) async throws -> StoredSendBack? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM send_back WHERE submission_id = ? AND \"open\" = 1", arguments: [id.description])
                .map(Self.sendBack)
        }
    }

    func openSendBacks() async throws -> [StoredSendBack] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM send_back WHERE \"open\" = 1 ORDER BY seq").map(Self.sendBack)
        }
    }

    private static func insert(_ db: Database, _ event: ReviewEvent, submission id: FormID, version: Int) throws {
        try db.execute(sql: """
            INSERT INTO review_event (submission_id, version, state, "by", "at", note) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [id.description, version, event.reviewState.rawValue, event.by, event.at.timeIntervalSince1970, event.note])
        // The submission's row says where its review stands, for the listing's filter.
        try db.execute(sql: "UPDATE submission SET review_state = ? WHERE id = ?", arguments: [event.reviewState.rawValue, id.description])
    }

    private static func sendBack(_ row: Row) throws -> StoredSendBack {
        let text: String = row["submission_id"]
        guard let id = FormID(text) else { throw ReviewStoreCorruption.submission(text) }
        return StoredSendBack(submissionID: id, version: row["version"], by: row["by"],
                       at: Date(timeIntervalSince1970: row["at"]), note: row["note"],
                       flags: try ReviewFlagsColumn.decode(row["flags"]), open: row["open"])
    }
}

/// A stored review row the server cannot read (written by a newer server, or edited by hand).
enum ReviewStoreCorruption: Error, CustomStringConvertible {
    case state(String, submission: String)
    case submission(String)

    var description: String {
        switch self {
        case .state(let state, let id): "submission \(id) has the unknown review state \"\(state)\" in review_event"
        case .submission(let text): "send_back has the submission id \"\(text)\", which is no form id"
        }
    }
}
