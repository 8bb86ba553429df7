import Foundation
@testable import MIKit
import XCTest

/// A large template is read in two halves at once; what it gives — the template, or its
/// problems in their order — is what reading it in one pass gives.
final class TemplateHalvesTests: XCTestCase {
    /// `groups` groups (every third a repeat) of `perGroup` questions of several types, in two
    /// languages, with logic reading questions of other groups.
    private func template(groups: Int = 8, perGroup: Int = 40, edit: (inout [JSONValue]) -> Void = { _ in }) -> JSONValue {
        var items: [JSONValue] = []
        var number = 0
        for group in 0..<groups {
            var questions: [JSONValue] = []
            for _ in 0..<perGroup {
                var question: [String: JSONValue] = [
                    "id": .string("q\(number)"),
                    "text": .object(["en": .string("Question \(number)"), "es": .string("Pregunta \(number)")]),
                ]
                switch number % 4 {
                case 0: question["type"] = .string("shortAnswer")
                case 1:
                    question["type"] = .string("numeric")
                    question["constraint"] = .string(". >= 0")
                case 2:
                    question["type"] = .string("multipleChoice")
                    question["options"] = .array((0..<4).map { option in
                        .object(["name": .string("c\(option)"),
                                 "label": .object(["en": .string("Choice \(option)"), "es": .string("Opción \(option)")])])
                    })
                default:
                    question["type"] = .string("trueFalse")
                    question["relevant"] = .string("${q\(max(0, number - 41))} != ''")
                }
                questions.append(.object(question))
                number += 1
            }
            items.append(.object(["id": .string("g\(group)"), "type": .string(group % 3 == 2 ? "repeat" : "group"),
                                  "text": .string("Group \(group)"), "questions": .array(questions)]))
        }
        edit(&items)
        return .object(["id": .string("halves"), "title": .string("Halves"), "version": .number(1),
                        "defaultLanguage": .string("en"), "questions": .array(items)])
    }

    private func read(_ json: JSONValue, inHalves: Bool) -> (Template?, [TemplateError.Problem]) {
        var validator = TemplateValidator(keys: .default, refusesControlCharacters: true,
                                          entriesReadInHalves: inHalves ? 256 : .max)
        let template = validator.template(json)
        return (validator.problems.isEmpty ? template : nil, validator.problems)
    }

    private func assertReadInHalves(_ json: JSONValue, file: StaticString = #filePath, line: UInt = #line) {
        let validator = TemplateValidator(keys: .default, refusesControlCharacters: true)
        XCTAssertNotNil(validator.halves(of: json.objectValue?["questions"]?.arrayValue ?? []),
                        "the template is large enough to be read in halves", file: file, line: line)
    }

    func testALargeTemplateReadInHalvesIsTheTemplateOfOnePass() throws {
        let json = template()
        assertReadInHalves(json)
        let (halves, problems) = read(json, inHalves: true)
        XCTAssertEqual(problems, [])
        let (onePass, _) = read(json, inHalves: false)
        let template = try XCTUnwrap(halves)
        XCTAssertEqual(template, onePass)
        XCTAssertEqual(template.questions.count, 320)
        XCTAssertEqual(template.questions.map(\.id), (0..<320).map { "q\($0)" })
        XCTAssertEqual(template.groups.map(\.id), (0..<8).map { "g\($0)" })
        XCTAssertEqual(template.questions[300].group, "g7")
        XCTAssertEqual(template.questions[2].translations["es"]?.text, "Pregunta 2")
        // And through the public reader, as `mi` and mi-server read it.
        XCTAssertEqual(try TemplateCoding().decode(json, source: "halves.json"), onePass)
    }

    func testProblemsInBothHalvesComeInTheOrderOfOnePass() throws {
        let json = template { items in
            // The first half: an empty text, an unknown type.
            guard case .object(var group)? = items.first, case .array(var questions)? = group["questions"],
                  case .object(var question) = questions[3] else { return XCTFail("no group") }
            question["text"] = .string(" ")
            questions[3] = .object(question)
            questions[9] = .object(["id": .string("odd"), "type": .string("sketch"), "text": .string("Draw")])
            group["questions"] = .array(questions)
            items[0] = .object(group)
            // The second half: a question without an id at the top level, a bad constraint, a
            // reference to no question.
            items.append(.object(["type": .string("shortAnswer"), "text": .string("Who?")]))
            items.append(.object(["id": .string("late"), "type": .string("numeric"), "text": .string("N"), "constraint": .string(". >>= 2")]))
            items.append(.object(["id": .string("later"), "type": .string("shortAnswer"), "text": .string("T"), "relevant": .string("${nowhere} = 1")]))
        }
        assertReadInHalves(json)
        let (halves, problems) = read(json, inHalves: true)
        let (_, onePass) = read(json, inHalves: false)
        XCTAssertNil(halves)
        XCTAssertEqual(problems, onePass)
        XCTAssertEqual(problems.map(\.question), ["q3", "odd", "#9", "late"])
        XCTAssertEqual(problems.map(\.field), ["text", "type", "id", "constraint"])
    }

    func testAnIdInBothHalvesIsReportedAsOnePassReportsIt() throws {
        let json = template { items in
            guard case .object(var group)? = items.last, case .array(var questions)? = group["questions"] else { return XCTFail("no group") }
            questions.append(.object(["id": .string("q5"), "type": .string("shortAnswer"), "text": .string("Again")]))
            questions.append(.object(["id": .string("g1"), "type": .string("shortAnswer"), "text": .string("A group's id")]))
            group["questions"] = .array(questions)
            items[items.count - 1] = .object(group)
        }
        assertReadInHalves(json)
        let (halves, problems) = read(json, inHalves: true)
        let (_, onePass) = read(json, inHalves: false)
        XCTAssertNil(halves)
        XCTAssertEqual(problems, onePass)
        XCTAssertEqual(problems.count, 2)
        XCTAssertEqual(problems.map(\.message), ["duplicate question id (question 41 of group g7)",
                                                 "duplicate question id (question 42 of group g7)"])
        XCTAssertEqual(problems.map(\.question), ["q5", "g1"])
    }

    func testASmallTemplateOrOneBigGroupIsReadInOnePass() {
        let validator = TemplateValidator(keys: .default, refusesControlCharacters: true)
        XCTAssertNil(validator.halves(of: template(groups: 2, perGroup: 10).objectValue?["questions"]?.arrayValue ?? []))
        XCTAssertNil(validator.halves(of: template(groups: 1, perGroup: 400).objectValue?["questions"]?.arrayValue ?? []))
        XCTAssertEqual(validator.halves(of: template(groups: 8, perGroup: 40).objectValue?["questions"]?.arrayValue ?? []), 4)
    }
}
