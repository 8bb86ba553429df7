import Foundation
import MIKit
@testable import MIXLSForm
import TestSupport
import XCTest

/// Export then import gives the same template: every shipped sample and the tests' own forms
/// (with groups, nested repeats, logic, filters and every type); LibreOffice opens the export.
final class XLSFormRoundTripTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every template JSON under Samples/templates, read as MI reads it.
    static func samples() throws -> [(String, Template)] {
        let folder = repository.appendingPathComponent("Samples/templates")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            (name, try TemplateCoding().decode(try Data(contentsOf: folder.appendingPathComponent(name)), source: name))
        }
    }

    func testEveryShippedSampleComesBackTheSame() throws {
        let samples = try Self.samples()
        XCTAssertGreaterThanOrEqual(samples.count, 7)
        for (name, template) in samples {
            let data = try XLSForm.export(template)
            let back = try XLSForm.read(data: data, fileName: "\(template.id).xlsx", files: [:])
            XCTAssertEqual(back.template, template, name)
            XCTAssertEqual(try TemplateCoding().encodeData(back.template), try TemplateCoding().encodeData(template), name)
            XCTAssertEqual(back.warnings, [], name)
        }
    }

    /// A template with groups, nested repeats (a counted one), logic, a choice filter with
    /// attributes, and a question of every type.
    static let everything = """
    {"id": "everything", "title": "Every type", "version": 7, "captureLocation": true, "questions": [
      {"id": "site", "type": "shortAnswer", "text": "Site", "help": "As on the gate", "required": true, "requiredMessage": "Say which site"},
      {"id": "pumps", "type": "numeric", "integer": true, "min": 0, "max": 20, "text": "Pumps", "default": "1"},
      {"id": "ratio", "type": "numeric", "integer": false, "text": "Ratio", "constraint": ". > 0 and . < 1", "constraintMessage": "Between 0 and 1"},
      {"id": "region", "type": "multipleChoice", "text": "Region", "options": [{"name": "n", "label": "North"}, {"name": "s", "label": "South"}]},
      {"id": "district", "type": "multipleChoice", "text": "District", "choiceFilter": "region = ${region}",
       "options": [{"name": "n1", "label": "North 1", "region": "n"}, {"name": "s1", "label": "South 1", "region": "s"}]},
      {"id": "faults", "type": "multipleChoice", "maxAnswers": 2, "text": "Faults", "options": ["Seal", "Bearing", "Casing"]},
      {"id": "any", "type": "multipleChoice", "maxAnswers": 0, "text": "Any", "options": ["a", "b"]},
      {"id": "ok", "type": "trueFalse", "text": "All fine?"},
      {"id": "day", "type": "date", "text": "Day", "min": "2020-01-01"},
      {"id": "at", "type": "time", "text": "At"},
      {"id": "when", "type": "dateTime", "text": "When"},
      {"id": "level", "type": "range", "start": 0, "end": 10, "step": 2, "text": "Level"},
      {"id": "info", "type": "note", "text": "Read this"},
      {"id": "where", "type": "geopoint", "minAccuracy": 5, "text": "Where"},
      {"id": "tag", "type": "barcode", "text": "Tag"},
      {"id": "shots", "type": "photo", "maxFiles": 3, "text": "Photos"},
      {"id": "sound", "type": "audio", "text": "Sound"},
      {"id": "clip", "type": "video", "text": "Clip"},
      {"id": "double", "type": "calculate", "text": "double", "calculation": "${pumps} * 2"},
      {"id": "grid", "type": "table", "text": "Grid", "rows": ["A", "B"], "columns": ["x", "y"], "noCells": [[1, 1]]},
      {"id": "more", "type": "group", "text": "More", "relevant": "${ok} = false()", "questions": [
        {"id": "why", "type": "shortAnswer", "text": "Why?", "readOnly": false},
        {"id": "pump", "type": "repeat", "text": "Pump", "repeatCount": "${pumps}", "questions": [
          {"id": "amps", "type": "numeric", "text": "Amps", "required": "${ok} = false()"},
          {"id": "seal", "type": "repeat", "text": "Seal", "questions": [
            {"id": "worn", "type": "trueFalse", "text": "Worn?"}
          ]}
        ]},
        {"id": "fixed", "type": "repeat", "repeatCount": 2, "questions": [{"id": "note2", "type": "shortAnswer", "text": "Note"}]}
      ]}
    ]}
    """

    func testAFormOfEveryTypeWithGroupsAndRepeatsComesBackTheSame() throws {
        let template = try TemplateCoding(keys: .logical).decode(Data(Self.everything.utf8), source: "everything")
        let data = try XLSForm.export(template)
        let back = try XLSForm.read(data: data, fileName: "x.xlsx", files: [:])
        XCTAssertEqual(back.template, template)
        XCTAssertEqual(back.template.groups.map(\.id), ["more", "pump", "seal", "fixed"])
        XCTAssertEqual(back.template.group(id: "seal")?.parent, "pump")
        XCTAssertEqual(back.warnings, [])
        // The XLSForm side is what other tools read: native types and columns where XLSForm has them.
        let survey = try XCTUnwrap(XLSForm.sheets(template).first)
        let header = survey.rows[0].map { $0?.text ?? "" }
        func cell(_ name: String, _ column: String) -> String? {
            guard let row = survey.rows.first(where: { $0.count > 1 && $0[1]?.text == name }),
                  let index = header.firstIndex(of: column), index < row.count else { return nil }
            return row[index]?.text
        }
        XCTAssertEqual(cell("pumps", "type"), "integer")
        XCTAssertEqual(cell("ratio", "type"), "decimal")
        XCTAssertEqual(cell("region", "type"), "select_one region")
        XCTAssertEqual(cell("any", "type"), "select_multiple any")
        XCTAssertEqual(cell("ok", "type"), "acknowledge")
        XCTAssertEqual(cell("level", "parameters"), "start=0 end=10 step=2")
        XCTAssertEqual(cell("where", "parameters"), "capture-accuracy=5")
        XCTAssertEqual(cell("shots", "type"), "image")
        XCTAssertEqual(cell("pump", "type"), "begin_repeat")
        XCTAssertEqual(cell("pump", "repeat_count"), "${pumps}")
        XCTAssertEqual(cell("pumps", XLSFormVocabulary.miSettings), "{\"max\":20,\"min\":0}")
        XCTAssertEqual(cell("grid", "type"), "table")
    }

    static let multilingual = """
    {"id": "bomba", "version": 2, "defaultLanguage": "Español (es)",
     "title": {"Español (es)": "Bomba", "English (en)": "Pump"},
     "questions": [
      {"id": "pressure", "type": "numeric", "text": {"Español (es)": "Presión (bar)", "English (en)": "Pressure (bar)"},
       "help": {"Español (es)": "En el manómetro", "English (en)": "On the gauge"},
       "constraint": ". <= 16", "constraintMessage": {"Español (es)": "Máximo 16 bar", "English (en)": "At most 16 bar"},
       "required": true, "requiredMessage": {"Español (es)": "Falta la presión", "English (en)": "Pressure missing"}},
      {"id": "state", "type": "multipleChoice", "text": "Estado",
       "options": [{"name": "ok", "label": {"Español (es)": "Bien", "English (en)": "Good"}}, "mal"]},
      {"id": "more", "type": "group", "text": {"Español (es)": "Más", "English (en)": "More"}, "questions": [
        {"id": "note", "type": "shortAnswer", "text": {"Español (es)": "Nota", "English (en)": "Note"}}
      ]}
     ]}
    """

    func testAFormInTwoLanguagesComesBackTheSame() throws {
        let template = try TemplateCoding(keys: .logical).decode(Data(Self.multilingual.utf8), source: "bomba")
        let back = try XLSForm.read(data: try XLSForm.export(template), fileName: "bomba.xlsx", files: [:])
        XCTAssertEqual(back.template, template)
        XCTAssertEqual(back.warnings, [])
        XCTAssertEqual(back.template.localized(to: "English (en)").question(id: "pressure")?.logic.constraintMessage, "At most 16 bar")
        let sheets = XLSForm.sheets(template)
        let header = sheets[0].rows[0].map { $0?.text ?? "" }
        for column in ["label::Español (es)", "label::English (en)", "hint::English (en)", "constraint_message::English (en)",
                       "required_message::Español (es)"] {
            XCTAssertTrue(header.contains(column), column)
        }
        XCTAssertFalse(header.contains("label"))
        XCTAssertEqual(sheets[1].rows[0].map { $0?.text ?? "" }, ["list_name", "name", "label::Español (es)", "label::English (en)"])
        let settings = sheets[2].rows[0].map { $0?.text ?? "" }
        XCTAssertTrue(settings.contains("default_language"))
    }

    /// LibreOffice (headless Calc) opens an exported sample and converts its survey sheet to CSV.
    func testLibreOfficeOpensTheExport() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = folder.path("pump.xlsx")
        let template = try XCTUnwrap(try Self.samples().first { $0.1.id == "pump-inspection" }?.1)
        try XLSForm.export(template).write(to: url)
        let csvPath = try Oracle.run(["csv", url.path, folder.path("csv").path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        XCTAssertTrue(csv.hasPrefix("type,name,label"), csv)
        XCTAssertTrue(csv.contains("select_one "), csv)
        XCTAssertTrue(csv.contains(template.questions[0].id), csv)
    }
}
