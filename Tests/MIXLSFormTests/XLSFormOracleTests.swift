import Foundation
import MIKit
@testable import MIXLSForm
import TestSupport
import XCTest

/// MI's import of XLSForms that openpyxl writes, compared question by question with what
/// pyxform (the converter ODK itself uses) reads from the same files: names, types, choice
/// lists, labels (in every language of the form), hints, pictures and every expression, groups and
/// nested repeats, a cascading select from a CSV.
final class XLSFormOracleTests: XCTestCase {
    static func script() throws -> URL {
        guard let url = Bundle.module.url(forResource: "xlsform_oracle", withExtension: "py") else {
            throw Oracle.Failure(description: "xlsform_oracle.py is not among the test resources")
        }
        return url
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", try script().path] + arguments)
    }

    struct OracleForm: Decodable {
        var id: String?
        var title: String?
        var version: String?
        var items: [[String: String]]
    }

    /// The template in the oracle's shape: one entry per question, group and repeat, in order.
    static func items(_ template: Template) -> [[String: String]] {
        var result: [[String: String]] = []
        func walk(_ items: [TemplateItem], prefix: String) {
            for item in items {
                switch item {
                case .group(let group, let children):
                    var entry = ["path": prefix + group.id, "type": group.isRepeat ? "repeat" : "group"]
                    entry["label"] = group.text
                    entry["relevant"] = group.relevant?.text
                    entry["repeat_count"] = group.repeatCount?.text
                    result.append(entry)
                    walk(children, prefix: prefix + group.id + "/")
                case .question(let question, _):
                    result.append(entry(question, path: prefix + question.id))
                }
            }
        }
        walk(template.items, prefix: "")
        return result
    }

    /// MI's type names as pyxform's JSON calls them.
    static let pyxformTypes = ["shortAnswer": "text", "trueFalse": "acknowledge"]

    static func entry(_ question: Question, path: String) -> [String: String] {
        var entry = ["path": path]
        if let choice = question.type as? MultipleChoiceQuestion {
            entry["type"] = choice.maxAnswers == 1 ? "select one" : "select all that apply"
            entry["choices"] = choice.choices.map { "\($0.name)=\($0.label)" }.joined(separator: "|")
        } else if let numeric = question.type as? NumericQuestion {
            entry["type"] = numeric.integer ? "integer" : "decimal"
        } else if let range = question.type as? RangeQuestion {
            entry["type"] = "range"
            entry["parameters"] = "start=\(formatNumber(range.rule.start)) end=\(formatNumber(range.rule.end)) step=\(formatNumber(range.rule.step))"
        } else {
            entry["type"] = pyxformTypes[question.typeName] ?? question.typeName
        }
        // pyxform gives a calculate no label; MI shows its name.
        if !(question.type.holdsCalculation && question.text == question.id) { entry["label"] = question.text }
        entry["hint"] = question.help
        entry["image"] = question.image
        let logic = question.logic
        entry["relevant"] = logic.relevant?.text
        entry["constraint"] = logic.constraint?.text
        entry["constraint_message"] = logic.constraintMessage
        switch logic.required {
        case .unset: break
        case .always(let flag): entry["required"] = flag ? "true" : "false"
        case .when(let expression): entry["required"] = expression.text
        }
        entry["required_message"] = logic.requiredMessage
        entry["calculation"] = logic.calculation?.text
        entry["default"] = logic.defaultValue
        if logic.readOnly { entry["read_only"] = "true" }
        entry["choice_filter"] = logic.choiceFilterText
        return entry
    }

    /// Compares the import with pyxform's reading in each of `languages` (MI's template
    /// localized to it), question by question; `check` gets the oracle of the first.
    private func compare(_ kind: String, languages: [String], check: (XLSFormImport, OracleForm) throws -> Void) throws {
        let folder = try TemporaryDirectory(prefix: "xlsform-oracle")
        let url = folder.path("\(kind).xlsx")
        try Self.run(["make", kind, url.path])
        let imported = try XLSForm.read(contentsOf: url)
        var first: OracleForm?
        for language in languages {
            let oracle = try JSONDecoder().decode(OracleForm.self, from: Data(try Self.run(["pyxform", url.path, language]).utf8))
            first = first ?? oracle
            let mine = Self.items(imported.template.localized(to: language))
            XCTAssertEqual(mine.map { $0["path"] ?? "" }, oracle.items.map { $0["path"] ?? "" }, "the same questions in the same order")
            for (own, theirs) in zip(mine, oracle.items) {
                XCTAssertEqual(own, theirs, "\(language): \(own["path"] ?? "")")
            }
        }
        try check(imported, try XCTUnwrap(first))
    }

    func testEveryTypeAndColumnGroupsNestedRepeatsAndACascadingSelectFromACSV() throws {
        try compare("full", languages: ["English (en)", "Español (es)"]) { imported, oracle in
            let template = imported.template
            XCTAssertEqual(template.defaultLanguage, "English (en)")
            XCTAssertEqual(template.languages, ["English (en)", "Español (es)"])
            XCTAssertEqual(template.localized(to: "Español (es)").question(id: "pumps")?.text, "Bombas")
            XCTAssertEqual(template.question(id: "pumps")?.text, "Pumps")
            XCTAssertEqual(template.id, oracle.id)
            XCTAssertEqual(template.title, oracle.title)
            // pyxform keeps the date the version cell holds (2026-11-26 09:45:00); MI numbers it yyyymmddHHMM.
            XCTAssertEqual(oracle.version, "2026-11-26 09:45:00")
            XCTAssertEqual(template.version, 202_611_260_945)
            XCTAssertEqual(template.group(id: "seal")?.parent, "pump")
            XCTAssertEqual(template.group(id: "pump")?.parent, "more")
            // The metadata rows are recorded by MI itself: no questions.
            for name in ["start", "end", "today", "deviceid", "username"] { XCTAssertNil(template.question(id: name)) }
            let district = try XCTUnwrap(template.question(id: "district")?.type as? MultipleChoiceQuestion)
            XCTAssertEqual(district.choices.map(\.attributes), [["region": "n"], ["region": "n"], ["region": "s"]])
            XCTAssertEqual(imported.warnings.map(\.description), [
                "sheet survey, column appearance: appearance \"minimal\" (row 10): MI does not draw it; the questions are asked as usual",
            ])
        }
    }

    func testUntidySpreadsheetsAsPyxformTakesThem() throws {
        try compare("untidy", languages: ["English"]) { imported, oracle in
            XCTAssertEqual(imported.template.id, "untidy")
            XCTAssertEqual(imported.template.title, "Untidy")
            XCTAssertEqual(imported.template.question(id: "count")?.logic.relevant?.text, "${colour} = '1'")
            XCTAssertEqual(imported.template.version, 1)
            XCTAssertEqual(imported.warnings, [])
        }
    }

    /// The full form exported again and imported gives the same template (and pyxform still reads the export).
    func testTheImportedFormRoundTrips() throws {
        let folder = try TemporaryDirectory(prefix: "xlsform-oracle")
        let url = folder.path("full.xlsx")
        try Self.run(["make", "full", url.path])
        let template = try XLSForm.read(contentsOf: url).template
        let exported = folder.path("exported.xlsx")
        try XLSForm.export(template).write(to: exported)
        XCTAssertEqual(try XLSForm.read(contentsOf: exported).template, template)
        let oracle = try JSONDecoder().decode(OracleForm.self, from: Data(try Self.run(["pyxform", exported.path, "default"]).utf8))
        XCTAssertEqual(oracle.items.map { $0["path"] ?? "" }, Self.items(template).map { $0["path"] ?? "" })
        XCTAssertEqual(oracle.items.map { $0["type"] ?? "" }, Self.items(template).map { $0["type"] ?? "" })
    }
}
