import Foundation
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The server's reader of stored submissions (statistics and exports) cut into 1, 2, 3, 4, 8
/// and 64 pieces — a server of that many cores — over real form.json files under
/// `submissions/`, for every count from 0 to 100: every form read once, in the listing's order.
/// Before one rule cut the pieces, 5 submissions on 4 cores gave the range 6..<5 and the
/// server died.
final class StoredFormsPiecesTests: XCTestCase {
    func testEveryCountOfSubmissionsIsReadWithEveryNumberOfPieces() async throws {
        let fixture = try ServerFixture()
        try fixture.layout.prepare()
        let template = try TemplateFixture.sampleTemplate()
        var submissions: [SubmissionSummary] = []
        for number in 0..<100 {
            var form = Form(id: FormID(), name: "form-\(number)", user: "ana", template: template, createdAt: TestClock.start)
            form.status = .completed
            let folder = fixture.layout.submission(form.id)
            try Files.write(try FormFile.encode(form), to: folder.appendingPathComponent(Store.formFileName))
            submissions.append(SubmissionSummary(id: form.id, templateID: template.id, templateTitle: template.title,
                                                 templateVersion: template.version, formName: form.name, user: "ana",
                                                 userDisplayName: nil, submittedAt: nil, receivedAt: TestClock.start,
                                                 uploadedBy: "fiona", answered: 0, questions: template.questions.count, media: 0))
        }
        let repository = try await fixture.openRepository()
        for pieces in [1, 2, 3, 4, 8, 64] {
            var stored = StoredForms(repository: repository, layout: fixture.layout)
            stored.pieces = pieces
            for count in 0...100 {
                var names: [String] = []
                try await stored.read(Array(submissions.prefix(count))) { batch in
                    names += batch.map { (try? $0.form.get().name) ?? "unreadable \($0.submission.formName)" }
                }
                XCTAssertEqual(names, (0..<count).map { "form-\($0)" }, "\(count) submissions, \(pieces) pieces")
            }
        }
    }
}
