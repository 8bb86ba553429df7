import Foundation
import MIKit

/// The export's source on the server: stored submissions (as `StoredForms.list` gives them,
/// in submission order), each read when the export reaches it — form.json through the fast
/// `FormReader` path, its bytes as stored for `jsonl`, and the media files kept beside it.
/// With `versions`, a form's superseded versions come before its current one.
struct StoredExportSource: ExportSource {
    /// One stored version to export.
    struct Item: Sendable {
        var id: FormID
        var version: Int
        var reviewState: ReviewState?
    }

    let items: [Item]
    let layout: DataLayout
    /// One `FormReader` for the whole export, so forms of the same template copy validate it
    /// once. A class because `load` is not mutating; the export writer calls it from one
    /// thread at a time, never from two at once.
    private let reader = ReaderBox()

    init(items: [Item], layout: DataLayout) {
        self.items = items
        self.layout = layout
    }

    /// The current version of each of `submissions`.
    static func items(_ submissions: [SubmissionSummary]) -> [Item] {
        submissions.map { Item(id: $0.id, version: $0.version ?? 1, reviewState: $0.reviewState) }
    }

    /// Every stored version of each of `submissions`, oldest first, with the submission's
    /// review state.
    static func items(everyVersionOf submissions: [SubmissionSummary], repository: any SubmissionRepository) async throws -> [Item] {
        var items: [Item] = []
        for summary in submissions {
            let current = summary.version ?? 1
            let versions = current > 1 ? try await repository.versions(id: summary.id).map(\.storedVersion) : [current]
            items += versions.map { Item(id: summary.id, version: $0, reviewState: summary.reviewState) }
        }
        return items
    }

    var count: Int { items.count }

    func load(_ index: Int) throws -> ExportedForm {
        let item = items[index]
        let folder = layout.submission(item.id, version: item.version)
        let json = try Data(contentsOf: folder.appendingPathComponent(Store.formFileName))
        let form = try reader.reader.decode(json)
        return ExportedForm(json: json, form: form, mediaPaths: ExportedForm.mediaPaths(of: form, in: folder.path),
                            reviewState: item.reviewState, version: item.version)
    }

    private final class ReaderBox {
        var reader = FormReader()
    }
}
