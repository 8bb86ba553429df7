import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// `FormReader`: the bulk reader gives exactly what `FormFile.decode` gives, for every form and
/// every broken file (then with the same error).
final class FormReaderTests: XCTestCase {
    func richForm(_ number: Int) throws -> Form {
        var form = Form(id: FormID(), name: "pump-\(number)", user: "ana", template: try TemplateFixture.sampleTemplate(),
                        createdAt: Date(timeIntervalSince1970: 1_772_442_000 + Double(number)))
        form.status = .completed
        form.submittedAt = Date(timeIntervalSince1970: 1_772_500_000)
        form.userDisplayName = "Ana Pérez"
        form.returnNote = number % 2 == 0 ? "Fix the \"seal\" photo\n— thanks \u{1F600}" : nil
        form.answers = [
            "guard": Answer(value: .bool(number % 3 == 0), comment: "tab\there"),
            "leaks": Answer(value: .choices(["Mechanical seal", "Suction flange"]), media: ["Qid1(1).jpg", "Qid1(2).mp4"]),
            "pressure": Answer(value: .number(Double(number) * 0.37 - 1e-7)),
            "hours": Answer(value: .number(12_345_678_901)),
            "bearings": Answer(value: .cells([["61.5", "2.1"], ["58", "1.9"], ["70", nil]])),
            "notes": Answer(value: .text("Ñuñoa / \\ \u{0001} end"), comment: nil),
            "noise": Answer(comment: "too loud"),
        ]
        var draft = Answer()
        draft.draft = [["1", nil], [nil, nil]]
        form.answers["checks"] = draft
        form.audit = [AuditEvent(at: form.createdAt, by: "ana", action: .created, note: "template v3"),
                      AuditEvent(at: form.createdAt, by: "ana", action: .answered, questions: ["guard", "leaks"]),
                      AuditEvent(at: form.createdAt, by: "fiona", action: .assigned, from: "bob", to: "ana")]
        form.foremanComments = [ForemanComment(at: form.createdAt, by: "fiona", text: "Good")]
        return form
    }

    func testReadsWhatDecodeReads() throws {
        var reader = FormReader()
        for number in 0..<6 {
            let data = try FormFile.encode(try richForm(number))
            XCTAssertEqual(try reader.decode(data), try FormFile.decode(data))
        }
    }

    func testReadsAnotherToolsLayout() throws {
        let data = try FormFile.encode(try richForm(1))
        let object = try JSONSerialization.jsonObject(with: data)
        let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted])
        var reader = FormReader()
        XCTAssertEqual(try reader.decode(pretty), try FormFile.decode(data))
    }

    func testTemplateCopiesAreKeptApart() throws {
        var reader = FormReader()
        var first = try richForm(1)
        var second = try richForm(2)
        second.template.version = 4
        second.template.questions[0].text = "Changed?"
        first.template.title = "First"
        for form in [first, second, first] {
            XCTAssertEqual(try reader.decode(try FormFile.encode(form)).template, form.template)
        }
    }

    func testBrokenFilesThrowDecodesError() throws {
        let good = String(decoding: try FormFile.encode(try richForm(1)), as: UTF8.self)
        let broken = [
            good.replacingOccurrences(of: "\"answers\":{", with: "\"answers\":{,"),
            good.replacingOccurrences(of: "\"formatVersion\":1", with: "\"formatVersion\":9"),
            good.replacingOccurrences(of: "\"status\":\"completed\"", with: "\"status\":\"lost\""),
            good.replacingOccurrences(of: "\"action\":\"created\"", with: "\"action\":\"exploded\""),
            good.replacingOccurrences(of: "\"type\":\"trueFalse\"", with: "\"type\":\"maybe\""),
            good.replacingOccurrences(of: "\"id\":\"guard\"", with: "\"id\":\"leaks\""),
            String(good.dropLast(3)),
            good + "x",
            "",
            "[]",
        ]
        for text in broken {
            var reader = FormReader()
            let expected: String
            do {
                _ = try FormFile.decode(Data(text.utf8))
                XCTFail("decode should refuse: \(text.prefix(80))")
                continue
            } catch {
                expected = String(describing: error)
            }
            XCTAssertThrowsError(try reader.decode(Data(text.utf8)), String(text.prefix(80))) { error in
                XCTAssertEqual(String(describing: error), expected)
            }
        }
    }

    func testUnusualButValidValuesFallBackToTheSameResult() throws {
        let good = String(decoding: try FormFile.encode(try richForm(1)), as: UTF8.self)
        let variants = [
            good.replacingOccurrences(of: "\"submittedAt\":\"2026-03-03T01:06:40Z\"", with: "\"submittedAt\":\"2026-03-03T02:06:40+01:00\""),
            good.replacingOccurrences(of: "\"user\":\"ana\"", with: "\"user\":\"\\u0061na\""),
            good.replacingOccurrences(of: "{\"answers\"", with: "{\"unknown\":[1,{\"a\":null}],\"answers\""),
        ]
        for text in variants {
            var reader = FormReader()
            XCTAssertEqual(try reader.decode(Data(text.utf8)), try FormFile.decode(Data(text.utf8)), String(text.prefix(120)))
        }
    }

    /// Whatever `FormFile.decode` gives for `text` (a form or an error), the reader gives too.
    func assertReadsLikeDecode(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        var reader = FormReader()
        let data = Data(text.utf8)
        switch (Result { try FormFile.decode(data) }, Result { try reader.decode(data) }) {
        case (.success(let expected), .success(let read)): XCTAssertEqual(read, expected, file: file, line: line)
        case (.failure(let expected), .failure(let read)):
            XCTAssertEqual(String(describing: read), String(describing: expected), file: file, line: line)
        case (let expected, let read): XCTFail("decode: \(expected), reader: \(read)", file: file, line: line)
        }
    }

    /// The reader reads answers, audit events and comments straight into their types: every
    /// member it knows, others ignored as the decoder ignores them, anything else the decoder's.
    func testMembersOfAnswersEventsAndCommentsReadLikeDecode() throws {
        let good = String(decoding: try FormFile.encode(try richForm(2)), as: UTF8.self)
        let variants: [(String, String)] = [
            ("\"action\":\"created\"", "\"action\":\"created\",\"extra\":[null,{\"y\":1.5e2}]"),
            ("\"action\":\"created\"", "\"\\u0061ction\":\"created\""),
            ("\"action\":\"created\"", "\"action\":\"created\",\"action\":\"created\""),
            ("\"action\":\"created\"", "\"action\":\"created\",\"\\u0061ction\":\"answered\""),
            ("\"action\":\"created\"", "\"action\":\"created\",\"note\":null"),
            ("\"action\":\"created\"", "\"action\" : \"created\" , \"questions\" : [ ]"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":null,\"media\":null,\"x\":{}"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":[]"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":[[]]"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":[\"a\",null]"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":[[\"a\"],\"b\"]"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":{\"a\":1}"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":-0.5e-3"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"value\":1e400"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"comment\":\"again\""),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"draft\":[]"),
            ("\"comment\":\"too loud\"", "\"comment\":\"too loud\",\"draft\":[[1]]"),
            ("\"text\":\"Good\"", "\"text\":\"Good\",\"extra\":true"),
            ("\"text\":\"Good\"", "\"te\\u0078t\":\"Good\""),
            ("\"text\":\"Good\"", "\"text\":null"),
            ("\"formatVersion\":1", "\"formatVersion\":1.0"),
            ("\"formatVersion\":1", "\"formatVersion\":1,\"formatVersion\":1"),
            ("\"returnNote\":", "\"returnNote\":null,\"x\":"),
        ]
        let rich = try richForm(2)
        let id = rich.id.description
        let form = String(decoding: try FormFile.encode(rich), as: UTF8.self)
        XCTAssertTrue(form.contains(id))
        for uuid in [id.uppercased(), String(id.dropLast()) + "g", String(id.dropLast()), id.replacingOccurrences(of: "-", with: "")] {
            assertReadsLikeDecode(form.replacingOccurrences(of: id, with: uuid))
        }
        for (target, replacement) in variants {
            XCTAssertTrue(good.contains(target), target)
            assertReadsLikeDecode(good.replacingOccurrences(of: target, with: replacement))
        }
    }

    func testJSONBytesIsStrict() {
        XCTAssertEqual(JSONBytes.parse(Data(#"{"a": [1, -2.5e3, "\u00e9\ud83d\ude00", true, null]}"#.utf8)),
                       .object(["a": .array([.number(1), .number(-2500), .string("é😀"), .bool(true), .null])]))
        for text in [#"{"a": 1,}"#, "[01]", "[1.]", #"["\ud83d"]"#, "[\"a\u{1}\"]", #"{"a": 1, "a": 2}"#, "nul", "[1] 2", "[1e999]", "[-]"] {
            XCTAssertNil(JSONBytes.parse(Data(text.utf8)), text)
        }
    }
}
