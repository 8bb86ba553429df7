import Foundation
import Logging
import MIKit

/// A send-back as stored: which version of which submission, who sent it back when, the
/// overall note and the flagged questions; open until the foreman settles the review otherwise
/// (a later send-back, or a state other than `hasIssues`) or a newer version answers it.
struct StoredSendBack: Sendable, Equatable {
    var submissionID: FormID
    var version: Int
    var by: String
    var at: Date
    var note: String?
    var flags: [ReviewFlag]
    var open: Bool
}

/// Where the review of stored submissions is kept, in the database the submissions use:
/// `review_event` (every change of state: submission, version, state, by, at, note) and
/// `send_back` (submission, version, by, at, note, flags as JSON, open or closed). A submission
/// with no event is `received`.
protocol ReviewStore: Sendable {
    /// The changes of submission `id`'s state, oldest first.
    func events(of id: FormID) async throws -> [ReviewEvent]
    /// Records a change of state; a state other than `hasIssues` closes the submission's open
    /// send-back in the same transaction (the foreman settled the review otherwise).
    func record(_ event: ReviewEvent, submission id: FormID, version: Int) async throws
    /// Records a send-back and the change to `hasIssues` it makes (with the send-back's note),
    /// closing the submission's earlier open send-back, in one transaction.
    func sendBack(_ sendBack: StoredSendBack) async throws
    /// The open send-back of submission `id`, if any.
    func openSendBack(of id: FormID) async throws -> StoredSendBack?
    /// Every open send-back, oldest first.
    func openSendBacks() async throws -> [StoredSendBack]
}

/// How both engines store a send-back's flags: a JSON array of `ReviewFlag`.
enum ReviewFlagsColumn {
    static func encode(_ flags: [ReviewFlag]) throws -> String {
        String(decoding: try WireJSON.encoder().encode(flags), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> [ReviewFlag] {
        try WireJSON.decoder().decode([ReviewFlag].self, from: Data(text.utf8))
    }
}

extension ReviewStore {
    /// The current state of submission `id`: its last event's, else `received`.
    func state(of id: FormID) async throws -> ReviewState {
        try await events(of: id).last?.reviewState ?? .received
    }
}

/// Opens the review store in the database `repository` keeps the submissions in, and brings
/// its tables up to date.
func openReviewStore(beside repository: any SubmissionRepository, logger: Logger) async throws -> any ReviewStore {
    if let sqlite = repository as? SQLiteSubmissionRepository {
        return try SQLiteReviewStore(pool: sqlite.pool)
    }
    if let postgres = repository as? PostgresSubmissionRepository {
        return try await PostgresReviewStore(repository: postgres, logger: logger)
    }
    throw ReviewStoreUnavailable(engine: String(describing: type(of: repository)))
}

/// The submissions are kept by a repository the review store cannot share a database with
/// (a defect of this build: each engine's repository has its review store).
struct ReviewStoreUnavailable: Error, CustomStringConvertible {
    var engine: String
    var description: String { "no review store for submissions kept by \(engine)" }
}
