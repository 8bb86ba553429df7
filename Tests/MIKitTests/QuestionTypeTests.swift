import Foundation
import MIKit
import XCTest

/// The question types' one-file contract: the registry, the keys they declare, each type's
/// round trip through template JSON, and the shapes readers draw.
final class QuestionTypeTests: XCTestCase {
    func testRegistryListsEveryTypeOnceInItsOrder() {
        XCTAssertEqual(QuestionTypes.all.map { $0.typeKey.rawValue }, ["multipleChoice", "trueFalse", "shortAnswer", "numeric", "table",
                                                                       "date", "time", "dateTime", "range", "note", "geopoint",
                                                                       "barcode", "photo", "audio", "video", "calculate"])
        // Config.plist's key list (and its "known:" message) keeps the order it always had.
        XCTAssertEqual(TemplateKeys.Key.allCases.map(\.rawValue), [
            "id", "title", "version", "questions", "scoring", "oncePerUser", "consent", "captureLocation", "defaultLanguage",
            "type", "text", "help", "image", "options", "maxAnswers", "integer", "min", "max", "rows", "columns", "noCells",
            "start", "end", "step",
            "minAccuracy",
            "maxFiles",
            "relevant", "constraint", "constraintMessage", "required", "requiredMessage", "calculation", "default", "readOnly",
            "choiceFilter",
            "repeatCount",
            "name", "label",
            "multipleChoice", "trueFalse", "shortAnswer", "numeric", "table", "date", "time", "dateTime", "range", "note", "geopoint",
            "barcode", "photo", "audio", "video", "calculate",
            "group", "repeat",
        ])
        XCTAssertEqual(TemplateKeys.Key(rawValue: "maxAnswers")?.defaultName, "Max-answers")
        XCTAssertNil(TemplateKeys.Key(rawValue: "maxanswers"))
    }

    func testEveryTypeRoundTripsThroughTemplateJSONWithRenamedKeys() throws {
        let keys = TemplateKeys(names: [.maxAnswers: "max", .numeric: "number", .noCells: "blank", .options: "choices"])
        let json = #"""
            {"id": "t", "title": "T", "version": 1, "questions": [
              {"id": "a", "type": "multipleChoice", "text": "A", "choices": ["x", "y"], "max": 0},
              {"id": "b", "type": "trueFalse", "text": "B"},
              {"id": "c", "type": "shortAnswer", "text": "C"},
              {"id": "d", "type": "number", "text": "D", "integer": true, "min": 1},
              {"id": "e", "type": "table", "text": "E", "rows": ["r"], "columns": ["c1", "c2"], "blank": [[0, 1]]}
            ]}
            """#
        let coding = TemplateCoding(keys: keys)
        let template = try coding.decode(Data(json.utf8), source: "t.json")
        XCTAssertEqual(template.questions.map(\.kind), [
            .multipleChoice(options: ["x", "y"], maxAnswers: 0), .trueFalse, .shortAnswer,
            .numeric(integer: true, min: 1, max: nil), .table(rows: ["r"], columns: ["c1", "c2"], noCells: [Cell(row: 0, column: 1)]),
        ])
        XCTAssertEqual(try coding.decode(coding.encode(template), source: "again"), template)
        // A type's own key, renamed, is named as renamed in the problem.
        let bad = json.replacingOccurrences(of: #""max": 0"#, with: #""max": 3"#)
        XCTAssertThrowsError(try coding.decode(Data(bad.utf8), source: "t.json")) { error in
            XCTAssertTrue(error.localizedDescription.contains(#"question a, field "max": 3 is more than the 2 options"#), error.localizedDescription)
        }
        let unknown = json.replacingOccurrences(of: #""type": "number""#, with: #""type": "numeric""#)
        XCTAssertThrowsError(try coding.decode(Data(unknown.utf8), source: "t.json")) { error in
            XCTAssertTrue(error.localizedDescription.contains(#"unknown question type "numeric" (known: "multipleChoice", "trueFalse", "shortAnswer", "number", "table", "date", "time", "dateTime", "range", "note", "geopoint", "barcode", "photo", "audio", "video", "calculate", "group", "repeat")"#),
                          error.localizedDescription)
        }
    }

    func testPresentationsAreTheClosedShapes() {
        let choice = MultipleChoiceQuestion(options: ["x", "y"], maxAnswers: 0)
        XCTAssertEqual(choice.presentation(of: .choices(["y", "gone"])), .choices(ChoiceList(options: ["x", "y"], chosen: ["y", "gone"])))
        XCTAssertEqual(ChoiceList(options: ["x", "y"], chosen: ["y", "gone"]).extra, ["gone"])
        XCTAssertEqual(choice.presentation(of: nil), .choices(ChoiceList(options: ["x", "y"], chosen: [])))
        XCTAssertEqual(choice.presentation(of: .text("typed")), .text("typed"), "a value of another type is shown as text")
        XCTAssertEqual(TrueFalseQuestion().presentation(of: .bool(false)), .yesNo(false))
        XCTAssertNil(TrueFalseQuestion().presentation(of: nil))
        XCTAssertEqual(NumericQuestion(integer: false, min: nil, max: nil).presentation(of: .number(2.5)), .text("2.5"))
        let table = TableQuestion(rows: ["r"], columns: ["a", "b"], noCells: [])
        XCTAssertEqual(table.presentation(of: .cells([["1", "2"]])),
                       .grid(GridLayout(rows: ["r"], columns: ["a", "b"], noCells: []), cells: [["1", "2"]]))
        XCTAssertEqual(table.tally, .grid(GridLayout(rows: ["r"], columns: ["a", "b"], noCells: [])))
        XCTAssertEqual(choice.tally, .choices(labels: ["x", "y"], multipleAnswers: true))
        XCTAssertEqual(TrueFalseQuestion().searchText(.bool(true)), nil)
        XCTAssertEqual(table.searchText(.cells([["1", nil]])), "1")
    }

    /// The goal of the Types folder: no Swift file outside it names a question type's case.
    func testNoFileOutsideTypesNamesAType() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"\.(multipleChoice|trueFalse|shortAnswer|numeric|table)\b"#)
        var naming: [String] = []
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path))
        for case let path as String in files where path.hasSuffix(".swift") && !path.hasPrefix("MIKit/Template/Types/") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            if pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { naming.append(path) }
        }
        XCTAssertEqual(naming, [], "these files switch over (or name) question types outside Sources/MIKit/Template/Types")
        XCTAssertGreaterThan(try FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent("MIKit/Template/Types").path).count, 5)
    }

    /// Nor does any file outside it name a type's Swift type (`DateQuestion`, `PhotoQuestion`,
    /// …): casting to one is a switch over types by another name. Every registered type counts,
    /// so a type added later is covered too. The scorers alone may name the types they read.
    func testNoFileOutsideTypesNamesATypesSwiftType() throws {
        let names = QuestionTypes.all.map { String(describing: $0) } + ["MediaQuestion"]
        XCTAssertTrue(names.contains("GeopointQuestion") && names.contains("VideoQuestion"), "\(names)")
        let pattern = try NSRegularExpression(pattern: #"\b("# + names.joined(separator: "|") + #")\b"#)
        let allowed: Set<String> = ["MIKit/Scoring/Scoring.swift"]
        var naming: [String] = []
        for (path, text) in try Self.sourceFiles() where !path.hasPrefix("MIKit/Template/Types/") && !allowed.contains(path) {
            if let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), let range = Range(match.range, in: text) {
                naming.append("\(path): \(text[range])")
            }
        }
        XCTAssertEqual(naming, [], "these files name a question type outside Sources/MIKit/Template/Types")
    }

    /// No `switch` over the closed shapes (`AnswerShape`, `TallyShape`, `AnswerValue`) has a
    /// `default:` arm anywhere: a shape added later must be drawn everywhere, not dropped
    /// silently. A switch is over a shape when one of its cases names a case only a shape has.
    func testNoSwitchOverShapesHasADefaultArm() throws {
        let shapeOnly: Set<String> = ["note", "location", "media", "yesNo", "grid", "days", "hours", "notCounted", "locations", "files", "cells", "texts", "numbers"]
        let caseName = try NSRegularExpression(pattern: #"case\s+(?:let\s+)?\.(\w+)"#)
        let defaultArm = try NSRegularExpression(pattern: #"\bdefault\s*:"#)
        var found: [String] = []
        var switches = 0
        for (path, text) in try Self.sourceFiles() {
            for body in Self.switchBodies(text) {
                let range = NSRange(body.startIndex..., in: body)
                let cases = Set(caseName.matches(in: body, range: range).compactMap { Range($0.range(at: 1), in: body).map { String(body[$0]) } })
                guard !cases.isDisjoint(with: shapeOnly) else { continue }
                switches += 1
                if defaultArm.firstMatch(in: body, range: range) != nil { found.append("\(path): switch over \(cases.sorted())") }
            }
        }
        XCTAssertGreaterThan(switches, 10, "the check finds the switches over shapes")
        XCTAssertEqual(found, [], "these switches over shapes have a default: arm")
        XCTAssertEqual(Self.switchBodies("switch x { case .note: a() default: if y { b() } }"), [" case .note: a() default: if y  "])
    }

    /// The Swift files under Sources, by path from there, with their text.
    static func sourceFiles() throws -> [(String, String)] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        guard let files = FileManager.default.enumerator(atPath: sources.path) else { return [] }
        var result: [(String, String)] = []
        for case let path as String in files where path.hasSuffix(".swift") {
            result.append((path, try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)))
        }
        return result
    }

    /// The top level of every `switch`'s braces in `text` (nested blocks left out, so a nested
    /// switch's arms are not counted as its parent's).
    static func switchBodies(_ text: String) -> [String] {
        let characters = Array(text)
        var bodies: [String] = []
        var index = 0
        let word = Array("switch")
        while index + word.count < characters.count {
            let isWord = Array(characters[index..<index + word.count]) == word
                && (index == 0 || !(characters[index - 1].isLetter || characters[index - 1].isNumber || characters[index - 1] == "_"))
                && !(characters[index + word.count].isLetter || characters[index + word.count].isNumber)
            guard isWord, let open = characters[(index + word.count)...].firstIndex(of: "{") else { index += 1; continue }
            var depth = 1, cursor = open + 1, top = ""
            while depth > 0, cursor < characters.count {
                let character = characters[cursor]
                if character == "{" { depth += 1 } else if character == "}" { depth -= 1 } else if depth == 1 { top.append(character) }
                cursor += 1
            }
            bodies.append(top)
            index += word.count
        }
        return bodies
    }

    /// The office editor draws each type's keys from `editorFields`: every key a type reads has
    /// exactly one field there, and a template's own editable keys are template keys.
    func testEveryKeyOfEveryTypeHasOneEditorField() {
        for type in QuestionTypes.all {
            let fields = type.editorFields.map(\.key)
            XCTAssertEqual(fields.count, Set(fields).count, "\(type.typeKey) lists a key twice: \(fields)")
            XCTAssertEqual(Set(fields), Set(type.keys), "\(type.typeKey)'s editor fields are not its keys")
            for field in type.editorFields where field.input == .choice {
                XCTAssertFalse(field.choices.isEmpty, "\(type.typeKey).\(field.key) is a choice of nothing")
            }
        }
        XCTAssertEqual(NumericQuestion.editorFields.map(\.input), [.flag, .number, .number])
        XCTAssertEqual(MultipleChoiceQuestion.editorFields.map(\.input), [.options, .wholeNumber])
        XCTAssertEqual(TableQuestion.editorFields.map(\.input), [.rows, .columns, .cells])
        // A type that declares nothing gets a line of text per key, captioned from the key's name.
        XCTAssertEqual(EditorField(TemplateKeys.Key("minAccuracy"), .number).caption, "Min accuracy")
        let templateKeys = Set(TemplateKeys.Key.allCases)
        for field in Template.editorFields {
            XCTAssertTrue(templateKeys.contains(field.key), "\(field.key) is not a known key")
            XCTAssertFalse([TemplateKeys.Key.id, .title, .version, .questions].contains(field.key), "\(field.key) has its own input")
        }
        XCTAssertEqual(Template.editorFields.first { $0.key == .scoring }?.choices, Scoring.allCases.map(\.rawValue))
    }

    /// editor.js names no scalar key of any type: it draws them from the registry, so a new
    /// type's keys need no change there.
    func testEditorScriptNamesNoScalarKey() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MIServer/Office/Assets/editor.js")
        let text = try String(contentsOf: script, encoding: .utf8)
        let structured: Set<EditorField.Input> = [.options, .rows, .columns, .cells]
        for type in QuestionTypes.all {
            for field in type.editorFields where !structured.contains(field.input) {
                let name = NSRegularExpression.escapedPattern(for: field.key.rawValue)
                let pattern = try NSRegularExpression(pattern: #"["']"# + name + #"["']|question\."# + name + #"\b"#)
                let found = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                XCTAssertNil(found, "editor.js names \(type.typeKey)'s key \(field.key)")
            }
        }
        for field in Template.editorFields {
            XCTAssertFalse(text.contains("\"\(field.key.rawValue)\""), "editor.js names the template key \(field.key)")
        }
        // The logic keys come from QuestionLogic.editorFields, sent with each type.
        for type in QuestionTypes.all {
            for field in QuestionLogic.editorFields(for: type) {
                let name = NSRegularExpression.escapedPattern(for: field.key.rawValue)
                let pattern = try NSRegularExpression(pattern: #"["']"# + name + #"["']|question\."# + name + #"\b"#)
                XCTAssertNil(pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), "editor.js names the logic key \(field.key)")
            }
        }
        // So do a group's and a repeat's (QuestionGroup.editorFields, sent as data-groups); the
        // label is the `text` the editor also reads for questions.
        for kind in [QuestionGroup.Kind.group, .repeat] {
            for field in QuestionGroup.editorFields(for: kind) where field.key != .text {
                let name = NSRegularExpression.escapedPattern(for: field.key.rawValue)
                let pattern = try NSRegularExpression(pattern: #"["']"# + name + #"["']|group\."# + name + #"\b"#)
                XCTAssertNil(pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), "editor.js names the group key \(field.key)")
            }
        }
    }

    /// Every logic key is editable on every type; a choice filter only where there are options.
    func testLogicEditorFieldsCoverEveryLogicKey() {
        for type in QuestionTypes.all {
            let keys = QuestionLogic.editorFields(for: type).map(\.key)
            let hasOptions = type.editorFields.contains { $0.input == .options }
            let all: [TemplateKeys.Key] = [.relevant, .constraint, .constraintMessage, .required, .requiredMessage, .calculation,
                                           .defaultValue, .readOnly, .choiceFilter]
            XCTAssertEqual(keys, all.filter { hasOptions || $0 != .choiceFilter }, "\(type.typeKey)")
        }
        XCTAssertEqual(QuestionLogic.editorFields(for: CalculateQuestion.self).first { $0.key == .calculation }?.input, .expression)
        XCTAssertEqual(QuestionLogic.editorFields(for: MultipleChoiceQuestion.self).last?.key, .choiceFilter)
        XCTAssertEqual(QuestionLogic.editorFields(for: NumericQuestion.self).first { $0.key == .required }?.input, .condition)
    }
}
