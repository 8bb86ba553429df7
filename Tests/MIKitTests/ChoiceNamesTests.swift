import Foundation
import MIKit
import TestSupport
import XCTest

/// Options with a name and a label (`{"name": "seal", "label": "Mechanical seal"}`): answers
/// store names, readers show labels, the CSV writes names as ODK Central does.
final class ChoiceNamesTests: XCTestCase {
    static let json = #"""
        {"id": "named", "title": "Named", "version": 1, "questions": [
          {"id": "leaks", "type": "multipleChoice", "text": "Leaks", "Max-answers": 0,
           "options": [{"name": "none", "label": "None"}, {"name": "seal", "label": "Mechanical seal"},
                       {"name": "drain", "label": "Casing drain"}, "Suction flange"]}
        ]}
        """#

    func template(_ json: String = ChoiceNamesTests.json) throws -> Template {
        try TemplateCoding().decode(Data(json.utf8), source: "named.json")
    }

    func rules() throws -> AnswerRules { AnswerRules(question: try template().questions[0], position: 1, count: 1) }

    func testOptionsReadAsNamesAndLabelsAndWriteBackUnchanged() throws {
        let template = try template()
        let type = try XCTUnwrap(template.questions[0].type as? MultipleChoiceQuestion)
        XCTAssertEqual(type.names, ["none", "seal", "drain", "Suction flange"])
        XCTAssertEqual(type.options, ["None", "Mechanical seal", "Casing drain", "Suction flange"])
        // A plain string stays a plain string; a named option stays an object.
        let encoded = TemplateCoding().encode(template)
        let options = encoded.objectValue?["questions"]?.arrayValue?.first?.objectValue?["options"]?.arrayValue
        XCTAssertEqual(options?[1], .object(["name": .string("seal"), "label": .string("Mechanical seal")]))
        XCTAssertEqual(options?[3], .string("Suction flange"))
        XCTAssertEqual(try TemplateCoding().decode(encoded, source: "again"), template)
    }

    func testBadOptionsAreRefusedNamingTheQuestionAndKey() throws {
        func refused(_ options: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
            let json = Self.json.replacingOccurrences(
                of: #"[{"name": "none", "label": "None"}, {"name": "seal", "label": "Mechanical seal"},"#, with: options + ",")
            XCTAssertThrowsError(try template(json), file: file, line: line) { error in
                XCTAssertTrue(error.localizedDescription.contains(#"question leaks, field "options": "# + message), error.localizedDescription,
                              file: file, line: line)
            }
        }
        refused(#"[{"name": "the seal", "label": "Mechanical seal"}"#, #"entry 1: the name "the seal" has white space"#)
        refused(#"[{"label": "Mechanical seal"}"#, #"entry 1 has no "name""#)
        refused(#"[{"name": "seal", "label": "Seal", "colour": "red"}"#, #"entry 1 has an unknown key "colour""#)
        refused(#"[{"name": "drain", "label": "Drain"}"#, #"option name "drain" is listed twice"#)
        refused(#"[{"name": "other", "label": "Casing drain"}"#, #"option label "Casing drain" is listed twice"#)
        refused(#"[3"#, "entry 1 must be a non-empty string or a")
        refused(#"[{"name": "Stem", "label": "Valve stem"}, "Stem""#, #"option name "Stem" (entry 1) is the label of entry 2, so an answer could mean either"#)
        // Renamed keys are honoured.
        let keys = TemplateKeys(names: [.choiceName: "value", .choiceLabel: "caption"])
        let renamed = Self.json.replacingOccurrences(of: #""name":"#, with: #""value":"#).replacingOccurrences(of: #""label":"#, with: #""caption":"#)
        XCTAssertEqual((try TemplateCoding(keys: keys).decode(Data(renamed.utf8), source: "r").questions[0].type as? MultipleChoiceQuestion)?.names,
                       ["none", "seal", "drain", "Suction flange"])
    }

    func testATypedAnswerGivesNumbersNamesOrLabelsAndStoresNames() throws {
        let rules = try rules()
        XCTAssertEqual(try rules.value(fromLine: "2, drain"), .choices(["seal", "drain"]))
        XCTAssertEqual(try rules.value(fromLine: "Mechanical seal, casing DRAIN"), .choices(["seal", "drain"]))
        XCTAssertEqual(try rules.value(fromLine: "seal 4"), .choices(["seal", "Suction flange"]))
        XCTAssertEqual(try rules.value(fromJSON: .array([.string("drain"), .string("Mechanical seal")])), .choices(["seal", "drain"]))
        XCTAssertThrowsError(try rules.value(fromLine: "gasket")) { error in
            XCTAssertTrue(error.localizedDescription.contains("2. Mechanical seal (seal)"), error.localizedDescription)
        }
        XCTAssertEqual(try template().questions[0].type.promptLines[1], "  2. Mechanical seal (seal)")
    }

    func testReadersShowLabelsAndTheCSVWritesNames() throws {
        let template = try template()
        let question = template.questions[0]
        XCTAssertEqual(question.type.presentation(of: .choices(["seal", "gone"])),
                       .choices(ChoiceList(options: ["None", "Mechanical seal", "Casing drain", "Suction flange"], chosen: ["Mechanical seal", "gone"])))
        var form = Form(name: "f", user: "ana", template: template, createdAt: TestClock.start)
        form.answers["leaks"] = Answer(value: .choices(["seal", "drain"]))
        let layout = CSVLayout(template: template)
        let cells = Dictionary(uniqueKeysWithValues: zip(layout.header, layout.row(for: form, attachmentsPresent: 0)))
        XCTAssertEqual(cells["leaks"], "seal drain")
        XCTAssertEqual(cells["leaks/seal"], "1")
        XCTAssertEqual(cells["leaks/none"], "0")
        XCTAssertEqual(cells["leaks/Suction flange"], "0")
        XCTAssertNil(cells["leaks/Mechanical seal"])
        // Statistics count by label.
        var builder = try StatisticsBuilder(template: template)
        form.status = .completed
        form.submittedAt = TestClock.start
        builder.add(form)
        let options = builder.result().questions[0].options ?? []
        XCTAssertEqual(options.map(\.label), ["None", "Mechanical seal", "Casing drain", "Suction flange"])
        XCTAssertEqual(options.map(\.count), [0, 1, 1, 0])
    }
}
