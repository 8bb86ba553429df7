import Foundation
import Logging
import MIKit
import PostgresNIO

/// `ReviewStore` in the PostgreSQL database of the submissions, through the repository's
/// client. Its migrations are recorded in `mi_migration` under names starting with `review-`,
/// applied under an advisory lock of their own, so servers starting at once apply each once.
struct PostgresReviewStore: ReviewStore {
    /// Kept: its client runs while it lives.
    let repository: PostgresSubmissionRepository
    var client: PostgresClient { repository.client }
    let logger: Logger

    /// Applied in order, each once; never edit one that shipped.
    private static let migrations: [(name: String, sql: [String])] = [
        ("review-v1", [
            """
            CREATE TABLE review_event (
                seq BIGSERIAL PRIMARY KEY,
                submission_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                state TEXT NOT NULL,
                "by" TEXT NOT NULL,
                "at" DOUBLE PRECISION NOT NULL,
                note TEXT
            )
            """,
            "CREATE INDEX review_event_by_submission ON review_event(submission_id, seq)",
            """
            CREATE TABLE send_back (
                seq BIGSERIAL PRIMARY KEY,
                submission_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                "by" TEXT NOT NULL,
                "at" DOUBLE PRECISION NOT NULL,
                note TEXT,
                flags JSONB NOT NULL,
                "open" BOOLEAN NOT NULL
            )
            """,
            "CREATE UNIQUE INDEX send_back_open ON send_back(submission_id) WHERE \"open\"",
        ]),
    ]

    /// The advisory lock key that serializes the review migrations between servers.
    private static let migrationLock: Int64 = 0x6D69_5F72_6576  // "mi_rev"

    init(repository: PostgresSubmissionRepository, logger: Logger) async throws {
        self.repository = repository
        self.logger = logger
        try await migrate()
    }

    private func migrate() async throws {
        try await repository.transaction { connection in
            try await PostgresMigrations.apply(Self.migrations, table: "mi_migration", lock: Self.migrationLock,
                                               on: connection, logger: logger)
        }
    }

    func events(of id: FormID) async throws -> [ReviewEvent] {
        var events: [ReviewEvent] = []
        let rows = try await client.query("""
            SELECT state, "by", "at", note FROM review_event WHERE submission_id = \(id.description) ORDER BY seq
            """, logger: logger)
        for try await (state, by, at, note) in rows.decode((String, String, Double, String?).self) {
            guard let reviewState = ReviewState(rawValue: state) else { throw ReviewStoreCorruption.state(state, submission: id.description) }
            events.append(ReviewEvent(reviewState: reviewState, by: by, at: Date(timeIntervalSince1970: at), note: note))
        }
        return events
    }

    func record(_ event: ReviewEvent, submission id: FormID, version: Int) async throws {
        try await repository.transaction { connection in
            try await Self.insert(connection, event, submission: id, version: version, logger: logger)
            if event.reviewState != .hasIssues {
                try await connection.query("UPDATE send_back SET \"open\" = false WHERE submission_id = \(id.description) AND \"open\"",
                                           logger: logger)
            }
        }
    }

    func sendBack(_ sendBack: StoredSendBack) async throws {
        let flags = try ReviewFlagsColumn.encode(sendBack.flags)
        try await repository.transaction { connection in
            try await connection.query("""
                UPDATE send_back SET "open" = false WHERE submission_id = \(sendBack.submissionID.description) AND "open"
                """, logger: logger)
            try await connection.query("""
                INSERT INTO send_back (submission_id, version, "by", "at", note, flags, "open")
                VALUES (\(sendBack.submissionID.description), \(sendBack.version), \(sendBack.by), \(sendBack.at.timeIntervalSince1970),
                        \(sendBack.note), \(flags)::jsonb, true)
                """, logger: logger)
            try await Self.insert(connection, ReviewEvent(reviewState: .hasIssues, by: sendBack.by, at: sendBack.at, note: sendBack.note),
                                  submission: sendBack.submissionID, version: sendBack.version, logger: logger)
        }
    }

    func openSendBack(of id: FormID) async throws -> StoredSendBack? {
        try await sendBacks(id: id).first
    }

    func openSendBacks() async throws -> [StoredSendBack] {
        try await sendBacks(id: nil)
    }

    private func sendBacks(id: FormID?) async throws -> [StoredSendBack] {
        let query: PostgresQuery = if let id {
            """
            SELECT submission_id, version, "by", "at", note, flags::text FROM send_back
            WHERE "open" AND submission_id = \(id.description) ORDER BY seq
            """
        } else {
            """
            SELECT submission_id, version, "by", "at", note, flags::text FROM send_back WHERE "open" ORDER BY seq
            """
        }
        var found: [StoredSendBack] = []
        let rows = try await client.query(query, logger: logger)
        for try await (submission, version, by, at, note, flags) in rows.decode((String, Int, String, Double, String?, String).self) {
            guard let id = FormID(submission) else { throw ReviewStoreCorruption.submission(submission) }
            found.append(StoredSendBack(submissionID: id, version: version, by: by, at: Date(timeIntervalSince1970: at),
                                        note: note, flags: try ReviewFlagsColumn.decode(flags), open: true))
        }
        return found
    }

    private static func insert(_ connection: PostgresConnection, _ event: ReviewEvent, submission id: FormID, version: Int,
                               logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO review_event (submission_id, version, state, "by", "at", note)
            VALUES (\(id.description), \(version), \(event.reviewState.rawValue), \(event.by), \(event.at.timeIntervalSince1970), \(event.note))
            """, logger: logger)
        // The submission's row says where its review stands, for the listing's filter.
        try await connection.query("UPDATE submission SET review_state = \(event.reviewState.rawValue) WHERE id = \(id.description)",
                                   logger: logger)
    }
}
