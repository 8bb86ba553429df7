import Foundation
import MIKit

/// The export's source on the server: stored submissions (as `StoredForms.list` gives them,
/// in submission order), each read when the export reaches it — form.json through the fast
/// `FormReader` path, its bytes as stored for `jsonl`, and the media files kept beside it.
struct StoredExportSource: ExportSource {
    let submissions: [SubmissionSummary]
    let layout: DataLayout
    /// One `FormReader` for the whole export, so forms of the same template copy validate it
    /// once. A class because `load` is not mutating; the export writer calls it from one
    /// thread at a time, never from two at once.
    private let reader = ReaderBox()

    init(submissions: [SubmissionSummary], layout: DataLayout) {
        self.submissions = submissions
        self.layout = layout
    }

    var count: Int { submissions.count }

    func load(_ index: Int) throws -> ExportedForm {
        let summary = submissions[index]
        let folder = layout.submission(summary.id)
        let json = try Data(contentsOf: folder.appendingPathComponent(Store.formFileName))
        let form = try reader.reader.decode(json)
        return ExportedForm(json: json, form: form, mediaPaths: ExportedForm.mediaPaths(of: form, in: folder.path),
                            reviewState: summary.reviewState)
    }

    private final class ReaderBox {
        var reader = FormReader()
    }
}
