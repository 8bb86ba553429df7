import Foundation
import MIKit
import TestSupport
import XCTest

/// A form the office sent back: its flags and `supersedes` in form.json, the rule of an answered
/// flag, replies, the submission that waits for every flag, and the returned form placed among
/// the technician's incomplete forms.
final class FormFlagTests: XCTestCase {
    private var fixture: StoreFixture!
    private var workflow: Workflow!

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        workflow = fixture.workflow(user: "ana")
    }

    override func tearDown() {
        workflow = nil
        fixture = nil
    }

    private let at = Date(timeIntervalSince1970: 1_772_500_000)

    /// A submitted sample form of ana's, as the server stores it: its form.json bytes.
    private func storedForm(media: [String] = []) throws -> (form: Form, file: Data) {
        _ = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")
        _ = try workflow.answer("pump-1", TemplateFixture.completeAnswers)
        let (location, form) = try workflow.submit("pump-1")
        var stored = form
        if !media.isEmpty { stored.answers["leaks", default: Answer()].media = media }
        try fixture.store.remove(location)
        return (stored, try FormFile.encode(stored))
    }

    private func sentBack(_ form: Form, flags: [ReviewFlag]) -> SentBackForm {
        SentBackForm(id: form.id, version: 1, formName: form.name, templateID: form.template.id,
                     by: "fiona", at: at, note: "please check", flags: flags)
    }

    private func placed(_ received: Workflow.Received) throws -> (FormLocation, Form) {
        guard case .placed(let location, let form) = received else {
            XCTFail("not placed: \(received)")
            throw CocoaError(.featureUnsupported)
        }
        return (location, form)
    }

    // MARK: - form.json

    func testAFormNeverSentBackWritesNeitherKey() throws {
        let form = try fixture.form(name: "plain", createdAt: at)
        let text = String(decoding: try FormFile.encode(form), as: UTF8.self)
        XCTAssertFalse(text.contains("\"flags\""), text)
        XCTAssertFalse(text.contains("\"supersedes\""), text)
        XCTAssertEqual(try FormFile.decode(try FormFile.encode(form)), form)
    }

    func testFlagsAndSupersedesRoundTripThroughDecodeAndTheFastReader() throws {
        var form = try fixture.form(name: "back", createdAt: at)
        form.answers["pressure"] = Answer(value: .number(4.5), comment: "gauge", media: ["Qid6(1).jpg"])
        form.supersedes = 2
        form.flags = [FormFlag(question: "pressure", note: "too low?", by: "fiona", at: at, returned: form.answer(for: "pressure"), reply: "rechecked"),
                      FormFlag(question: "notes", note: "say more", by: "fiona", at: at, returned: Answer())]
        let data = try FormFile.encode(form)
        XCTAssertEqual(try FormFile.decode(data), form)
        var reader = FormReader()
        XCTAssertEqual(try reader.decode(data), form)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains(#""supersedes":2"#), text)
        XCTAssertFalse(text.contains(#""media":[]"#), "an empty media list is left out")
    }

    // MARK: - The rule

    func testAFlagIsAnsweredByAChangedValueCommentOrMediaOrAReply() throws {
        var form = try fixture.form(name: "rule", createdAt: at)
        form.answers["pressure"] = Answer(value: .number(4.5), comment: "gauge", media: ["a.jpg"])
        let flag = FormFlag(question: "pressure", note: "check", by: "fiona", at: at, returned: form.answer(for: "pressure"))
        form.flags = [flag]
        XCTAssertFalse(form.isAnswered(flag))
        XCTAssertEqual(form.unansweredFlags, [flag])

        var changed = form
        changed.answers["pressure"]?.value = .number(5)
        XCTAssertTrue(changed.isAnswered(flag), "value")
        changed = form
        changed.answers["pressure"]?.comment = "gauge replaced"
        XCTAssertTrue(changed.isAnswered(flag), "comment")
        changed = form
        changed.answers["pressure"]?.media.append("b.jpg")
        XCTAssertTrue(changed.isAnswered(flag), "media")
        changed = form
        changed.answers["pressure"]?.comment = "gauge  "
        XCTAssertTrue(changed.isAnswered(flag), "a different comment text")

        var replied = flag
        replied.reply = "it is right"
        XCTAssertTrue(form.isAnswered(replied))
        replied.reply = "  \n"
        XCTAssertFalse(form.isAnswered(replied), "a blank reply says nothing")

        // An empty comment is no comment.
        var empty = try fixture.form(name: "empty", createdAt: at)
        let open = FormFlag(question: "notes", note: "say more", by: "fiona", at: at, returned: Answer())
        empty.answers["notes"] = Answer(comment: "")
        XCTAssertFalse(empty.isAnswered(open))
    }

    // MARK: - Placing a returned form

    /// `data` as a downloaded media file in the store's staging folder, as `mi sync` leaves it.
    private func staged(_ name: String, _ data: Data) throws -> (name: String, file: URL) {
        let file = try fixture.store.makeStagingFolder().appendingPathComponent("download")
        try data.write(to: file)
        return (name, file)
    }

    func testAReturnedFormIsPlacedWithItsFlagsOnceAndNeverOverwritten() throws {
        let (stored, file) = try storedForm(media: ["Qid2(1).jpg"])
        let photo = Data([1, 2, 3])
        let returned = sentBack(stored, flags: [ReviewFlag(question: "leaks", note: "photo blurred"), ReviewFlag(question: "hours", note: "really?")])
        let (location, form) = try placed(try workflow.receiveReturned(returned, formFile: file, media: [try staged("Qid2(1).jpg", photo)]))
        XCTAssertEqual(location.area, .incomplete)
        XCTAssertEqual(Set(Files.names(in: location.folder)), ["form.json", "Qid2(1).jpg"])
        XCTAssertEqual(try Data(contentsOf: location.folder.appendingPathComponent("Qid2(1).jpg")), photo)
        let loaded = try fixture.store.load(location)
        XCTAssertEqual(loaded, form)
        XCTAssertEqual(loaded.status, .incomplete)
        XCTAssertNil(loaded.submittedAt)
        XCTAssertEqual(loaded.supersedes, 1)
        XCTAssertEqual(loaded.returnNote, "please check")
        XCTAssertEqual(loaded.returnedAt, at)
        XCTAssertEqual(loaded.flags.map(\.question), ["leaks", "hours"])
        XCTAssertEqual(loaded.flags.first?.media, ["Qid2(1).jpg"])
        XCTAssertEqual(loaded.flags.last?.value, .number(1200))
        XCTAssertEqual(loaded.audit.last?.action, .returned)
        XCTAssertEqual(loaded.audit.last?.by, "fiona")
        XCTAssertEqual(loaded.audit.last?.questions, ["leaks", "hours"])

        // Twice: the form here is left as it is.
        let before = try Data(contentsOf: location.formFile)
        guard case .alreadyHere(let here) = try workflow.receiveReturned(returned, formFile: file, media: [try staged("Qid2(1).jpg", photo)]) else {
            return XCTFail("a form with that id is here already")
        }
        XCTAssertEqual(here, location)
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
    }

    func testAReturnedFormThatDoesNotAddUpIsRefusedAndNothingIsWritten() throws {
        let (stored, file) = try storedForm(media: ["Qid2(1).jpg"])
        let flag = [ReviewFlag(question: "leaks", note: "x")]
        let cases: [(SentBackForm, [(name: String, file: URL)], String)] = [
            (sentBack(stored, flags: flag), [], "media missing: Qid2(1).jpg"),
            (sentBack(stored, flags: [ReviewFlag(question: "nope", note: "x")]), [try staged("Qid2(1).jpg", Data([1]))], "which is no question of the form"),
            (SentBackForm(id: FormID(), version: 1, formName: "pump-1", templateID: "pump-inspection", by: "fiona",
                          at: at, note: nil, flags: flag), [try staged("Qid2(1).jpg", Data([1]))], "its form.json is form"),
        ]
        for (returned, media, message) in cases {
            XCTAssertThrowsError(try workflow.receiveReturned(returned, formFile: file, media: media)) { error in
                XCTAssertTrue((error as? ReturnedFormError)?.errorDescription?.contains(message) == true, "\(error)")
            }
        }
        let bob = fixture.workflow(user: "bob")
        XCTAssertThrowsError(try bob.receiveReturned(sentBack(stored, flags: flag), formFile: file, media: [try staged("Qid2(1).jpg", Data([1]))])) { error in
            XCTAssertTrue((error as? ReturnedFormError)?.errorDescription?.contains("it is ana's form, not bob's") == true, "\(error)")
        }
        XCTAssertThrowsError(try workflow.receiveReturned(sentBack(stored, flags: flag), formFile: Data("{}".utf8), media: []))
        XCTAssertEqual(try fixture.store.list(.incomplete).forms.count, 0)
    }

    // MARK: - Replies and submission

    func testSubmitWaitsForEveryFlagAndKeepsThemWithTheReplies() throws {
        let (stored, file) = try storedForm()
        let returned = sentBack(stored, flags: [ReviewFlag(question: "pressure", note: "too high"), ReviewFlag(question: "notes", note: "say more")])
        let (location, _) = try placed(try workflow.receiveReturned(returned, formFile: file, media: []))

        XCTAssertThrowsError(try workflow.submit(location.name)) { error in
            XCTAssertEqual(error as? WorkflowError, .unansweredFlags(form: location.name, flags: returned.flags))
            XCTAssertEqual((error as? WorkflowError)?.failureClass.exitCode, 65)
        }
        XCTAssertThrowsError(try workflow.reply(location.name, question: "guard", text: "fine")) { error in
            XCTAssertEqual(error as? WorkflowError, .noSuchFlag(form: location.name, question: "guard", flagged: ["pressure", "notes"]))
        }
        XCTAssertThrowsError(try workflow.reply(location.name, question: "notes", text: "   ")) { error in
            XCTAssertEqual((error as? WorkflowError)?.code, "empty-text")
        }
        _ = try workflow.answer(location.name, [AnswerUpdate(question: "pressure", value: .words(["3.5"]))])
        XCTAssertThrowsError(try workflow.submit(location.name)) { error in
            XCTAssertEqual(error as? WorkflowError, .unansweredFlags(form: location.name, flags: [ReviewFlag(question: "notes", note: "say more")]))
        }
        // By the question's number, as `mi answer` takes it: notes is question 9.
        let replied = try workflow.reply(location.name, question: "9", text: "nothing to add")
        XCTAssertEqual(replied.flags.last?.reply, "nothing to add")
        XCTAssertEqual(replied.audit.last?.action, .replied)
        XCTAssertEqual(replied.audit.last?.sentence, "replied to the flag on notes by ana: “nothing to add”")
        XCTAssertTrue(replied.unansweredFlags.isEmpty)

        let (completed, form) = try workflow.submit(location.name)
        XCTAssertEqual(completed.area, .completed)
        let kept = try fixture.store.load(completed)
        XCTAssertEqual(kept.flags, form.flags)
        XCTAssertEqual(kept.flags.map(\.reply), [nil, "nothing to add"])
        XCTAssertEqual(kept.supersedes, 1)
    }
}
