import Foundation
import MIKit
import TestSupport
import XCTest

/// The consent rule (no answer or submission before the template's text is accepted) and the
/// once-per-user rule (no second form of such a template for the same user).
final class ConsentAndOncePerUserTests: XCTestCase {
    private var fixture: StoreFixture!
    private var store: Store { fixture.store }

    static let consentText = "Acepto participar en el estudio.\nPuedo retirarme cuando quiera."
    static let cohortJSON = #"""
    {"id": "cohort", "title": "Cohorte", "version": 1, "oncePerUser": true,
     "consent": "Acepto participar en el estudio.\nPuedo retirarme cuando quiera.",
     "questions": [{"id": "edad", "type": "numeric", "text": "Edad", "integer": true, "min": 0, "max": 120}]}
    """#

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        _ = try TemplateCache(store: store, keys: fixture.configuration.templateKeys)
            .install(Data(Self.cohortJSON.utf8), source: "cohort.json")
    }

    override func tearDown() { fixture = nil }

    private var digest: String { FileDigest.sha256(of: Data(Self.consentText.utf8)) }
    private let age = [AnswerUpdate(question: "edad", value: .words(["71"]))]

    // MARK: - Consent

    func testAnswerIsRefusedBeforeTheConsentIsAcceptedAndNothingChanges() throws {
        let workflow = fixture.workflow()
        let (location, started) = try workflow.startForm(templateID: "cohort", name: "c1")
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.answer("c1", age)) { error in
            XCTAssertEqual(error as? WorkflowError, .consentRequired(form: "c1", template: "cohort"))
            XCTAssertEqual((error as? WorkflowError)?.code, "consent-required")
            XCTAssertEqual((error as? WorkflowError)?.failureClass, .badData)
            XCTAssertTrue(error.localizedDescription.contains("--accept-consent"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("mi fill c1"), error.localizedDescription)
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before, "form.json is untouched")
        XCTAssertNil(started.consent)
    }

    func testAcceptingRecordsWhoWhenAndTheTextsSHA256() throws {
        let workflow = fixture.workflow()
        let (location, _) = try workflow.startForm(templateID: "cohort", name: "c1")
        fixture.clock.advance(by: 60)
        let accepted = try workflow.acceptConsent("c1")
        XCTAssertEqual(accepted.consent, ConsentAcceptance(by: "ana", at: TestClock.start.addingTimeInterval(60), sha256: digest))
        XCTAssertEqual(digest.count, 64)
        XCTAssertEqual(accepted.audit.last?.action, .consented)
        XCTAssertEqual(accepted.audit.last?.note, digest)
        XCTAssertTrue(accepted.hasRequiredConsent)
        XCTAssertEqual(try store.load(location), accepted, "the acceptance is saved")
        let answered = try workflow.answer("c1", age)
        XCTAssertEqual(answered.answer(for: "edad").value, .number(71))
    }

    func testAcceptingTwiceRecordsOnceAndATemplateWithoutConsentIsUnchanged() throws {
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "cohort", name: "c1")
        let first = try workflow.acceptConsent("c1")
        fixture.clock.advance(by: 60)
        XCTAssertEqual(try workflow.acceptConsent("c1"), first)
        let (_, plain) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")
        XCTAssertEqual(try workflow.acceptConsent("pump-1"), plain, "nothing to accept: nothing recorded")
    }

    func testAnAcceptanceOfAnotherTextDoesNotCount() throws {
        let workflow = fixture.workflow()
        let (location, _) = try workflow.startForm(templateID: "cohort", name: "c1")
        var form = try store.load(location)
        form.consent = ConsentAcceptance(by: "ana", at: TestClock.start, sha256: String(repeating: "0", count: 64))
        try store.save(form, at: location)
        XCTAssertFalse(form.hasRequiredConsent)
        XCTAssertThrowsError(try workflow.answer("c1", age)) { error in
            XCTAssertEqual(error as? WorkflowError, .consentRequired(form: "c1", template: "cohort"))
        }
        XCTAssertEqual(try workflow.acceptConsent("c1").consent?.sha256, digest, "accepting records the right text")
    }

    func testSubmitIsRefusedWithoutTheConsent() throws {
        let workflow = fixture.workflow()
        let (location, _) = try workflow.startForm(templateID: "cohort", name: "c1")
        // A form answered before the rule (or edited by hand) still cannot leave.
        var form = try store.load(location)
        form.answers["edad"] = Answer(value: .number(71))
        try store.save(form, at: location)
        XCTAssertThrowsError(try workflow.submit("c1")) { error in
            XCTAssertEqual(error as? WorkflowError, .consentRequired(form: "c1", template: "cohort"))
        }
        XCTAssertEqual(try workflow.resolve("c1").area, .incomplete, "the form stays where it was")
        _ = try workflow.acceptConsent("c1")
        XCTAssertEqual(try workflow.submit("c1").0.area, .completed)
    }

    func testSimulatedFormsRecordTheSimulatingUsersAcceptance() throws {
        let workflow = fixture.workflow()
        let forms = try workflow.simulate(SimulationRequest(templateID: "cohort", count: 2, seed: 7, submit: true))
        XCTAssertEqual(forms.count, 2, "a simulation is not bound by once per user")
        for form in forms {
            XCTAssertEqual(form.consent?.by, "ana")
            XCTAssertEqual(form.consent?.sha256, digest)
            XCTAssertTrue(form.isSimulated)
            XCTAssertEqual(form.status, .completed)
        }
    }

    // MARK: - Once per user

    func testASecondFormIsRefusedWhileTheFirstExistsIncompleteOrCompleted() throws {
        let workflow = fixture.workflow()
        let (_, first) = try workflow.startForm(templateID: "cohort", name: "c1")
        XCTAssertThrowsError(try workflow.startForm(templateID: "cohort", name: "c2")) { error in
            guard case .oncePerUser(let template, let user, let existing)? = error as? WorkflowError else {
                return XCTFail("expected oncePerUser, got \(error)")
            }
            XCTAssertEqual(template, "cohort")
            XCTAssertEqual(user, "ana")
            XCTAssertEqual(existing, ExistingForm(templateID: "cohort", id: first.id, name: "c1", place: .incomplete, date: TestClock.start))
            XCTAssertEqual((error as? WorkflowError)?.code, "once-per-user")
            XCTAssertTrue(error.localizedDescription.contains("c1 (id \(first.id.description.prefix(8)), started 2026-03-02"),
                          error.localizedDescription)
        }
        XCTAssertEqual(try store.list(.incomplete, user: "ana").forms.map(\.location.name), ["c1"], "nothing was created")
        _ = try workflow.acceptConsent("c1")
        _ = try workflow.answer("c1", age)
        _ = try workflow.submit("c1")
        XCTAssertThrowsError(try workflow.startForm(templateID: "cohort", name: "c2")) { error in
            guard case .oncePerUser(_, _, let existing)? = error as? WorkflowError else { return XCTFail("\(error)") }
            XCTAssertEqual(existing.place, .completed)
        }
    }

    func testDeletingTheFirstAllowsAnotherAndOtherUsersAndTemplatesAreFree() throws {
        let ana = fixture.workflow(user: "ana")
        _ = try ana.startForm(templateID: "cohort", name: "c1")
        XCTAssertNoThrow(try fixture.workflow(user: "luis").startForm(templateID: "cohort", name: "c1"))
        XCTAssertNoThrow(try ana.startForm(templateID: TemplateFixture.sampleID, name: "p1"))
        XCTAssertNoThrow(try ana.startForm(templateID: TemplateFixture.sampleID, name: "p2"), "a template not once per user")
        _ = try ana.delete("c1")
        XCTAssertNoThrow(try ana.startForm(templateID: "cohort", name: "c2"))
    }

    func testAFormRememberedOnTheServerRefusesOfflineAndIsKeptDurably() throws {
        let workflow = fixture.workflow()
        let id = FormID()
        let seen = ExistingForm(templateID: "cohort", id: id, name: "c0", place: .server, date: TestClock.start)
        try workflow.rememberOnServer(seen, user: "ana")
        try workflow.rememberOnServer(seen, user: "ana")
        XCTAssertEqual(try store.rememberedForms(of: "ana"), [seen], "remembered once")
        XCTAssertEqual(Files.names(in: store.onceFolder), ["ana.json"])
        XCTAssertThrowsError(try workflow.startForm(templateID: "cohort", name: "c1")) { error in
            XCTAssertTrue(error.localizedDescription.contains("c0 (id \(id.description.prefix(8)), submitted 2026-03-02, on the server)"),
                          error.localizedDescription)
        }
        XCTAssertTrue(try store.rememberedForms(of: "luis").isEmpty)
    }

    func testUploadingAFormRemembersIt() throws {
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "cohort", name: "c1")
        _ = try workflow.acceptConsent("c1")
        _ = try workflow.answer("c1", age)
        let (location, form) = try workflow.submit("c1")
        try store.remove(location)
        try fixture.workflow(user: "jefe", role: .foreman).rememberUploaded(form)
        XCTAssertEqual(try store.rememberedForms(of: "ana").map(\.id), [form.id])
        XCTAssertThrowsError(try workflow.startForm(templateID: "cohort", name: "c2"))
        let (_, plain) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "p1")
        try workflow.rememberUploaded(plain)
        XCTAssertEqual(try store.rememberedForms(of: "ana").count, 1, "a template not once per user is not remembered")
    }

    func testAnUnreadableRecordIsAnErrorNamingTheFile() throws {
        try Files.write(Data("nonsense".utf8), to: store.onceFolder.appendingPathComponent("ana.json"))
        XCTAssertThrowsError(try fixture.workflow().startForm(templateID: "cohort", name: "c1")) { error in
            XCTAssertTrue(error.localizedDescription.contains(".once/ana.json"), error.localizedDescription)
        }
    }

    func testReassigningToAUserWhoHasOneIsRefused() throws {
        _ = try fixture.workflow(user: "ana").startForm(templateID: "cohort", name: "c1")
        _ = try fixture.workflow(user: "luis").startForm(templateID: "cohort", name: "mine")
        let foreman = fixture.workflow(user: "jefe", role: .foreman)
        XCTAssertThrowsError(try foreman.reassign("ana/c1", to: "luis")) { error in
            guard case .oncePerUser(_, "luis", let existing)? = error as? WorkflowError else { return XCTFail("\(error)") }
            XCTAssertEqual(existing.name, "mine")
        }
        XCTAssertEqual(try foreman.resolve("ana/c1").user, "ana", "nothing moved")
        XCTAssertNoThrow(try foreman.reassign("ana/c1", to: "eva"))
    }

    func testASweepRemovesLeftoverTemporaryRecords() throws {
        try fixture.workflow().rememberOnServer(ExistingForm(templateID: "cohort", id: FormID(), name: "c0", place: .server, date: TestClock.start),
                                                user: "ana")
        let leftover = store.onceFolder.appendingPathComponent(".mi-tmp-dead")
        try Files.write(Data("x".utf8), to: leftover)
        _ = try store.sweep(expiryDays: 7, now: TestClock.start)
        XCTAssertEqual(Files.names(in: store.onceFolder), ["ana.json"])
    }
}
