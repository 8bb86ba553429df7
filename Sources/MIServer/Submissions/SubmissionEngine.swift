import Foundation
import MIKit

/// A `SubmissionRepository` on an SQL engine: the engine runs statements, this extension asks
/// the questions (`SubmissionSQL`), the same on SQLite and PostgreSQL. The engines keep what
/// needs their own transactions and locks: `record`, `restore`, `discardUnrecorded` and the
/// backup's snapshot.
protocol SubmissionEngine: SubmissionRepository {
    var sql: SubmissionSQL { get }
    /// The rows `statement` selects.
    func rows(_ statement: SQLText) async throws -> [SQLRow]
    /// Runs `statements` in one transaction.
    func execute(_ statements: [SQLText]) async throws
}

extension SubmissionEngine {
    public func receipt(id: FormID) async throws -> Receipt? {
        let statements = sql.receipt(id: id)
        guard let row = try await rows(statements.row).first else { return nil }
        return try SubmissionSQL.receipt(row: row, parts: try await rows(statements.parts))
    }

    public func versions(id: FormID) async throws -> [Receipt] {
        guard let current = try await receipt(id: id) else { return [] }
        let statements = sql.superseded(id: id)
        let earlier = try SubmissionSQL.supersededReceipts(rows: try await rows(statements.rows), parts: try await rows(statements.parts))
        return earlier.filter { $0.storedVersion < current.storedVersion } + [current]
    }

    public func submissions(_ query: SubmissionQuery) async throws -> SubmissionPage {
        try SubmissionSQL.page(try await rows(sql.page(query)), of: query)
    }

    public func count(_ query: SubmissionQuery) async throws -> Int {
        Int(try await rows(sql.count(query)).first?.integer("n") ?? 0)
    }

    public func counts(since start: Date, user: String?, by dates: SubmissionQuery.DateBasis) async throws -> SubmissionCounts {
        let statements = sql.counts(since: start, user: user, by: dates)
        return try SubmissionSQL.counts(templates: try await rows(statements.templates), days: try await rows(statements.days),
                                        states: try await rows(statements.states))
    }

    public func forms(of templateID: String, filters: StatisticsFilters) async throws -> [SubmissionSummary] {
        try await rows(sql.forms(of: templateID, filters: filters)).map(SubmissionSQL.summary)
    }

    public func users() async throws -> [String] {
        try await rows(SubmissionSQL.users).map { try $0.text("name") }
    }

    public func submissionIDs() async throws -> Set<FormID> {
        Set(try await rows(SubmissionSQL.ids).map { try $0.formID("id") })
    }

    public func unsummarized() async throws -> [(id: FormID, version: Int)] {
        try await rows(SubmissionSQL.unsummarizedIDs).map { (try $0.formID("id"), Int(try $0.integer("version"))) }
    }

    public func summarize(id: FormID, form: Form) async throws {
        try await execute(try sql.summarize(id: id, form: form))
    }

    /// Makes every row look as stored before summaries were kept (tests of the backfill).
    func forgetSummaries() async throws {
        try await execute(sql.forgetSummaries)
    }
}
