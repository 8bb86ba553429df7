import Foundation
import MIKit

/// Where submissions are recorded. Implementations serialize `record` calls so that the check
/// for an existing id, the placing of the files and the insert happen as one step.
///
/// The summary an implementation keeps includes the form's scores (`Form.scoreValues`, stored
/// as `StoredScores` encodes them, NULL for a template without a scorer): `receipt(id:)`,
/// `submissions` and `forms` return them as `Receipt.scores` and `SubmissionSummary.scores`.
protocol SubmissionRepository: Sendable {
    /// Records `receipt` unless a submission with its id exists, with `form`'s summary and
    /// search text in the same transaction.
    ///
    /// When the id is free, `placeFiles` runs inside the same transaction, before the insert
    /// (it moves the received files into the submission's folder); if the transaction then
    /// fails, `removeFiles` runs, serialized with other commits, and the error is thrown.
    /// When the id is taken, neither runs and the stored receipt comes back.
    ///
    /// A form of a once-per-user template (`Template.oncePerUser`, not simulated) is recorded
    /// only while no other submission of that template id (any version) by the same user is
    /// stored: a unique constraint decides, in the same transaction, so of two racing uploads
    /// one is stored and the other gets `.taken` with the first one's summary.
    func record(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome
    /// Records `receipt` (same id, `storedVersion` one more than the stored current version's)
    /// as the current version of its form, keeping the version it supersedes (its receipt; its
    /// files stay where they are) and marking the form `edited` for the office, in one
    /// transaction serialized with `record` of the same id. `placeFiles` and `removeFiles` as
    /// for `record`. When the stored current version is another than the one `receipt`
    /// supersedes (another upload got there first), nothing runs and `.existing` gives it.
    func supersede(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                   removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome
    /// The stored receipt of submission `id` (its current version), or nil.
    func receipt(id: FormID) async throws -> Receipt?
    /// Every stored version of form `id`, oldest first (the current one last); empty when the
    /// server holds no such form.
    func versions(id: FormID) async throws -> [Receipt]
    /// One page of the submissions `query` selects, in its order, with the cursors of the next
    /// and (after a `cursor`, or before a `before`) the previous page.
    func submissions(_ query: SubmissionQuery) async throws -> SubmissionPage
    /// How many submissions `query`'s filters select (its limit and cursor aside); with
    /// `before`, only those before that row in the query's order.
    func count(_ query: SubmissionQuery) async throws -> Int
    /// Submissions uploaded (or submitted, by `dates`) since `start` (only `user`'s when
    /// given), per template and per UTC day of that time; and every stored one (only `user`'s)
    /// per review state.
    func counts(since start: Date, user: String?, by dates: SubmissionQuery.DateBasis) async throws -> SubmissionCounts
    /// The stored submissions of template `templateID` that `filters` select by their summaries
    /// (technician, template version, submission time; `groupBy` is the statistics' business),
    /// oldest submission first, then in the order stored. Statistics and exports read these
    /// forms whole (`StoredForms`) and apply `StatisticsFilters.includes` again, the one rule.
    func forms(of templateID: String, filters: StatisticsFilters) async throws -> [SubmissionSummary]
    /// The technicians (user names) with at least one submission, sorted.
    func users() async throws -> [String]
    /// The ids of every committed submission.
    func submissionIDs() async throws -> Set<FormID>
    /// Submissions recorded before summaries were kept (or whose form could not be read since),
    /// with their current version.
    func unsummarized() async throws -> [(id: FormID, version: Int)]
    /// Stores the summary and search text of submission `id` from its `form`.
    func summarize(id: FormID, form: Form) async throws
    /// Runs `remove` (it removes the files of version `version` of `id`) when that version is
    /// not committed — no submission `id` for version 1, a current version before `version` for
    /// a later one — serialized with `record` and `supersede` of the same id: on PostgreSQL across
    /// every server sharing the database, so a folder another server placed and is committing
    /// right now is kept. Returns whether `remove` ran.
    func discardUnrecorded(id: FormID, version: Int, remove: @escaping @Sendable () -> Void) async throws -> Bool
    /// Every committed submission's receipt, in the order stored, then every version they
    /// superseded (by form, oldest first), and the rows each of `also` selects, read at one
    /// instant (what `mi-server backup` archives): on SQLite from a copy made with the online
    /// backup API at `scratch`, on PostgreSQL in one REPEATABLE READ snapshot.
    func snapshot(scratch: URL, also: [SQLText]) async throws -> (receipts: [Receipt], rows: [[SQLRow]])
    /// Records restored submissions whose files are already in place, as `snapshot` lists them
    /// (each form's highest version is its current one, in the given order, with its summary,
    /// search text and once-per-user claim computed from `form(receipt)` as `record` computes
    /// them; the others are kept as superseded), then runs `also` (the review's and the audit
    /// log's rows), in one transaction; refused (`BackupError.targetNotEmpty`) when any
    /// submission is stored already.
    func restore(_ receipts: [Receipt], form: @escaping @Sendable (Receipt) throws -> Form, also: [SQLText]) async throws
}

extension SubmissionRepository {
    /// The ids of `unsummarized()`.
    func unsummarizedIDs() async throws -> [FormID] { try await unsummarized().map(\.id) }
}

/// The dashboard's figures over a period.
public struct SubmissionCounts: Sendable, Equatable {
    /// Submissions of one template.
    public struct Template: Sendable, Equatable {
        public var templateID: String
        public var templateTitle: String
        public var count: Int
    }

    /// Submissions uploaded (or submitted) on one UTC day.
    public struct Day: Sendable, Equatable {
        /// The day's start (00:00 UTC).
        public var day: Date
        public var count: Int
    }

    /// Every stored submission (not only the period's) in one review state.
    public struct State: Sendable, Equatable {
        public var reviewState: ReviewState
        public var count: Int
    }

    /// Most submissions first; templates without any are absent.
    public var templates: [Template]
    /// Oldest first; days without any are absent.
    public var days: [Day]
    /// Every review state, in `ReviewState.allCases`' order, with its count (0 included).
    public var reviewStates: [State] = []
}

public enum RecordOutcome: Sendable, Equatable {
    /// Stored now.
    case recorded(Receipt)
    /// A submission with this id was already stored; its receipt.
    case existing(Receipt)
    /// The template is once per user and the user's submission of it (another id) is stored.
    case taken(SubmissionSummary)
}
