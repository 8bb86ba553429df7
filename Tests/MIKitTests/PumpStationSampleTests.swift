import Foundation
import MIKit
import TestSupport
import XCTest

/// The shipped pumping-station round (Samples/templates/pump-station.json): a repeat counted by
/// an answer, a group of readings relevant only for a running pump, a constraint reading another
/// answer of the same instance, a calculation per instance and one summed over the instances.
final class PumpStationSampleTests: XCTestCase {
    func testTheShippedAnswersGiveEachPumpsPowerAndTheStationsLoad() throws {
        let fixture = try StoreFixture()
        let samples = TemplateFixture.sampleFiles().first { $0.lastPathComponent == "pump-station.json" }
        let file = try XCTUnwrap(samples, "Samples/templates/pump-station.json")
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(try Data(contentsOf: file), source: file.lastPathComponent)
        let answers = file.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("answers/pump-station.json")
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "pump-station", name: "ps4")
        var form = try workflow.answer("ps4", try Workflow.updates(fromAnswersFile: try Data(contentsOf: answers)))
        XCTAssertEqual(form.answers["pumps[1]/power_kw"]?.value, .text("37.89"))
        XCTAssertEqual(form.answers["pumps[3]/power_kw"]?.value, .text("0"))
        XCTAssertEqual(form.answers["total_kw"]?.value, .text("77.22"))
        XCTAssertTrue(form.openSlots.map(\.key) == ["ventilation"], "\(form.openSlots.map(\.key))")
        XCTAssertThrowsError(try workflow.answer("ps4", [AnswerUpdate(question: "pumps[2]/amps", value: .words(["70"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("pumps[2]/amps (7 of 11): More than 110% of the rated current"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.answer("ps4", [AnswerUpdate(question: "pumps[3]/amps", value: .words(["10"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("its group is not relevant"), error.localizedDescription)
        }
        form = try workflow.answer("ps4", [AnswerUpdate(question: "ventilation", value: .words(["yes"]))])
        let (_, submitted) = try workflow.submit("ps4")
        XCTAssertEqual(submitted.status, .completed)
        XCTAssertEqual(submitted.answers.count, 20)
    }
}
