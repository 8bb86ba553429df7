import Foundation
import MIKit
import TestSupport
import XCTest

/// `FormDiff`: what changed between two stored versions of one form, question by question.
final class FormDiffTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    private func version(_ edit: (inout Form) -> Void, parts: [String: String] = [:]) throws -> (form: Form, receipt: Receipt) {
        let id = FormID("6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f") ?? FormID()
        var form = Form(id: id, name: "pump-1", user: "ana", template: try TemplateFixture.sampleTemplate(), createdAt: start)
        form.answers["guard"] = Answer(value: .bool(true), comment: "bolts greased", media: ["Qid0(1).jpg"])
        form.answers["notes"] = Answer(value: .text("all fine"))
        edit(&form)
        let receipt = Receipt(id: id, user: "ana", formName: form.name, uploadedBy: "fiona", receivedAt: start,
                              parts: parts.map { Receipt.Part(name: $0.key, filename: $0.key, size: 1, sha256: $0.value) })
        return (form, receipt)
    }

    func testTheSameFormHasNoChanges() throws {
        let one = try version({ _ in }, parts: ["Qid0(1).jpg": "aa"])
        XCTAssertEqual(FormDiff.changes(from: one, to: one), [])
    }

    func testAnswersCommentsAndGeneralCommentsInTheFormsOrder() throws {
        let before = try version({ $0.foremanComments = [ForemanComment(at: self.start, by: "fiona", text: "check the valve")] },
                                 parts: ["Qid0(1).jpg": "aa"])
        let after = try version({ form in
            form.answers["guard"]?.comment = nil
            form.answers["notes"] = nil
            form.answers["pressure"] = Answer(value: .number(12.5))
            form.foremanComments = [ForemanComment(at: self.start, by: "gil", text: "valve replaced")]
        }, parts: ["Qid0(1).jpg": "aa"])
        XCTAssertEqual(FormDiff.changes(from: before, to: after), [
            FormChange(kind: .comment, question: "guard", before: "bolts greased", after: nil),
            FormChange(kind: .answer, question: "pressure", before: nil, after: "12.5"),
            FormChange(kind: .answer, question: "notes", before: "all fine", after: nil),
            FormChange(kind: .foremanComment, question: nil, after: "gil: valve replaced"),
            FormChange(kind: .foremanComment, question: nil, before: "fiona: check the valve"),
        ])
    }

    func testMediaAreComparedByTheirSHA256NotTheirNames() throws {
        let before = try version({ _ in }, parts: ["Qid0(1).jpg": "aa"])
        let renamed = try version({ $0.answers["guard"]?.media = ["Qid0(2).jpg"] }, parts: ["Qid0(2).jpg": "aa"])
        XCTAssertEqual(FormDiff.changes(from: before, to: renamed), [], "the same bytes under another name are no change")
        let retaken = try version({ _ in }, parts: ["Qid0(1).jpg": "bb"])
        XCTAssertEqual(FormDiff.changes(from: before, to: retaken), [
            FormChange(kind: .mediaRemoved, question: "guard", media: "Qid0(1).jpg", sha256: "aa"),
            FormChange(kind: .mediaAdded, question: "guard", media: "Qid0(1).jpg", sha256: "bb"),
        ])
    }

    func testFlagsAndRepliesAreChanges() throws {
        let before = try version({ _ in }, parts: ["Qid0(1).jpg": "aa"])
        let after = try version({ form in
            form.flags = [FormFlag(question: "notes", note: "say what was done", by: "fiona", at: self.start,
                                   returned: form.answers["notes"] ?? Answer(), reply: "  ")]
        }, parts: ["Qid0(1).jpg": "aa"])
        XCTAssertEqual(FormDiff.changes(from: before, to: after), [
            FormChange(kind: .flag, question: "notes", after: "say what was done"),
        ], "a blank reply is no reply")
        var replied = after
        replied.form.flags[0].reply = "nothing to add"
        XCTAssertEqual(FormDiff.changes(from: after, to: replied), [
            FormChange(kind: .reply, question: "notes", after: "nothing to add"),
        ], "the same flag again is no change; its reply is")
    }
}
