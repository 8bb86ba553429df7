import Foundation
import MIKit

/// The stored submissions of one template, read whole for statistics and exports: listed by
/// the repository (`forms(of:filters:)`, in submission order) and their form.json files read
/// off the async threads, a batch at a time on every core, so memory stays flat however many
/// there are and the batches come back in the listing's order.
struct StoredForms: Sendable {
    /// Forms read and handed over at once.
    static let batchSize = 1_024

    let repository: any SubmissionRepository
    let layout: DataLayout
    /// Pieces each batch is read in (`WorkPieces.ranges`): one per core unless a test sets it.
    var pieces = WorkPieces.cores

    /// One stored submission as read: its summary and its form, or why form.json could not be read.
    struct Read: Sendable {
        var submission: SubmissionSummary
        var form: Result<Form, any Error>
    }

    /// The submissions of `templateID` that `filters` select, in submission order.
    func list(_ templateID: String, filters: StatisticsFilters) async throws -> [SubmissionSummary] {
        try await repository.forms(of: templateID, filters: filters)
    }

    /// Reads `submissions`' forms a batch at a time and hands each batch to `body`, in order.
    /// The next batch is read while `body` works on the current one.
    func read(_ submissions: [SubmissionSummary], batchSize: Int = batchSize,
              _ body: ([Read]) async throws -> Void) async throws {
        let batches = stride(from: 0, to: submissions.count, by: max(batchSize, 1)).map {
            Array(submissions[$0..<min($0 + batchSize, submissions.count)])
        }
        guard let first = batches.first else { return }
        let layout = self.layout, pieces = self.pieces
        var pending = Task { try await Self.read(first, layout: layout, pieces: pieces) }
        for index in batches.indices {
            let current = try await pending.value
            if index + 1 < batches.count {
                let next = batches[index + 1]
                pending = Task { try await Self.read(next, layout: layout, pieces: pieces) }
            }
            do {
                try await body(current)
            } catch {
                pending.cancel()
                throw error
            }
        }
    }

    /// The form.json of each submission, read on the thread pool with every core.
    private static func read(_ submissions: [SubmissionSummary], layout: DataLayout, pieces: Int) async throws -> [Read] {
        // Paths joined as text: building 10,000 URLs cost more than opening the files.
        let folder = layout.submissions.path
        let files = submissions.map { summary in
            guard let version = summary.version, version > 1 else { return folder + "/" + summary.id.description + "/" + Store.formFileName }
            return layout.submission(summary.id, version: version).appendingPathComponent(Store.formFileName).path
        }
        let forms = try await Blocking.run {
            FormReader.concurrently(files, pieces: pieces) { file, reader in try reader.decode(try DurableFile.contents(atPath: file)) }
        }
        return zip(submissions, forms).map { Read(submission: $0, form: $1) }
    }
}
