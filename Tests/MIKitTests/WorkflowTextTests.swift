import Foundation
import MIKit
import TestSupport
import XCTest

/// Forms saved before the text rule are corrected before they leave the technician, and the
/// technician's display name the workflow records.
final class WorkflowTextTests: XCTestCase {
    private var fixture: StoreFixture!
    private var workflow: Workflow!
    private var store: Store { fixture.store }

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        workflow = fixture.workflow(user: "ana")
    }

    override func tearDown() {
        workflow = nil
        fixture = nil
    }

    private func start(_ name: String = "pump-1") throws -> FormLocation {
        try workflow.startForm(templateID: TemplateFixture.sampleID, name: name, displayName: "Ana Pérez").0
    }

    private func assertRefused(_ body: @autoclosure () throws -> Any, _ fragment: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? TextRuleError)?.code, "control-character", "\(error)", file: file, line: line)
            XCTAssertTrue(error.localizedDescription.contains(fragment), error.localizedDescription, file: file, line: line)
        }
    }

    func testSubmitRefusesAFormSavedWithControlCharactersUntilCorrected() throws {
        let location = try start()
        _ = try workflow.answer("pump-1", TemplateFixture.completeAnswers)
        var form = try store.load(location)
        form.answers["notes"]?.value = .text("left\u{1B}[D")
        try store.save(form, at: location)
        assertRefused(try workflow.submit("pump-1"), "answer to notes contains the control character U+001B")
        XCTAssertTrue(Files.exists(location.formFile), "the form stays where it was")
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "notes", value: .words(["left"]))])
        XCTAssertNoThrow(try workflow.submit("pump-1"))
    }

    func testUploadIsRefusedLocallyForAFormWithControlCharacters() throws {
        _ = try start()
        _ = try workflow.answer("pump-1", TemplateFixture.completeAnswers)
        let (location, _) = try workflow.submit("pump-1")
        var form = try store.load(location)
        form.answers["guard"]?.comment = "\u{1B}c"
        try store.save(form, at: location)
        assertRefused(try fixture.workflow(user: "fiona", role: .foreman).prepareUpload(location), "comment on guard")
        XCTAssertNil(try store.load(location).audit.first { $0.action == .uploaded }, "nothing was recorded")
    }

    // MARK: - Display name

    func testStartFormRecordsTheTechniciansDisplayName() throws {
        let form = try store.load(try start())
        XCTAssertEqual(form.userDisplayName, "Ana Pérez")
        XCTAssertEqual(form.technicianLabel, "Ana Pérez (ana)")
    }

    func testADisplayNameWithControlCharactersIsNotRecorded() throws {
        let (_, form) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "p", displayName: "Ana\u{1B}[2J")
        XCTAssertNil(form.userDisplayName)
        XCTAssertEqual(form.technicianLabel, "ana")
        let (_, blank) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "q", displayName: "  ")
        XCTAssertNil(blank.userDisplayName)
    }

    func testReassignRecordsTheNewTechniciansDisplayName() throws {
        _ = try start()
        let result = try fixture.workflow(user: "fiona", role: .foreman).reassign("ana/pump-1", to: "carla", displayName: "Carla Núñez")
        XCTAssertEqual(try store.load(result.to).technicianLabel, "Carla Núñez (carla)")
    }

    func testAFormWrittenWithoutADisplayNameStillLoads() throws {
        let location = try start()
        var text = try String(contentsOf: location.formFile, encoding: .utf8)
        XCTAssertTrue(text.contains(#","userDisplayName":"Ana Pérez""#), text)
        text = text.replacingOccurrences(of: #","userDisplayName":"Ana Pérez""#, with: "")
        try Data(text.utf8).write(to: location.formFile)
        let form = try store.load(location)
        XCTAssertNil(form.userDisplayName)
        XCTAssertEqual(form.technicianLabel, "ana")
    }

    func testTheDisplayNameIsPartOfTheFormsTextRule() throws {
        var form = try store.load(try start())
        form.userDisplayName = "Ana\u{9B}2J"
        assertRefused(try TextRules.check(form), "technician's display name")
    }
}
