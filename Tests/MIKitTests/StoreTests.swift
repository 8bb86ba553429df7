import Foundation
@testable import MIKit
import TestSupport
import XCTest

final class StoreTests: XCTestCase {
    private var fixture: StoreFixture!
    private var store: Store { fixture.store }
    private let day: TimeInterval = 86_400

    override func setUpWithError() throws {
        fixture = try StoreFixture()
    }

    override func tearDown() {
        fixture = nil
    }

    /// A form with one answer of every kind.
    private func answeredForm(name: String = "pump-1", user: String = "ana") throws -> Form {
        var form = try fixture.form(name: name, user: user, createdAt: TestClock.start)
        form.answers = [
            "guard": Answer(value: .bool(true)),
            "leaks": Answer(value: .choices(["None"]), comment: "dry"),
            "noise": Answer(value: nil, comment: "could not run it"),
            "pressure": Answer(value: .number(1)),
            "hours": Answer(value: .number(0)),
            "bearings": Answer(value: .cells([["61", "2.5"], ["58", "1.9"], ["70", nil]]), media: ["Qid6(1).jpg"]),
            "notes": Answer(value: .text("true")),
        ]
        form.record(AuditEvent(at: TestClock.start.addingTimeInterval(60), by: user, action: .answered,
                               questions: ["guard", "leaks"]))
        form.foremanComments = [ForemanComment(at: TestClock.start.addingTimeInterval(120), by: "boss", text: "ok")]
        return form
    }

    // MARK: - Round trip

    func testCreateListLoadRoundTrip() throws {
        let form = try answeredForm()
        let location = try store.create(form)
        XCTAssertEqual(location.folder.path, fixture.root.appendingPathComponent("Users/ana/pump-1").path)
        XCTAssertEqual(location.area, .incomplete)

        let listing = try store.list(.incomplete)
        XCTAssertEqual(listing.unreadable.count, 0)
        XCTAssertEqual(listing.forms.map(\.location.folder.path), [location.folder.path])
        XCTAssertEqual(listing.forms.first?.summary, form.summary)

        XCTAssertEqual(try store.load(location), form)
    }

    func testAnswerValuesKeepTheirKindThroughFormJSON() throws {
        let form = try answeredForm()
        let loaded = try FormFile.decode(try FormFile.encode(form))
        XCTAssertEqual(loaded.answers["pressure"]?.value, .number(1), "1 must not come back as true")
        XCTAssertEqual(loaded.answers["hours"]?.value, .number(0), "0 must not come back as false")
        XCTAssertEqual(loaded.answers["guard"]?.value, .bool(true))
        XCTAssertEqual(loaded.answers["notes"]?.value, .text("true"), "the text \"true\" stays text")
        XCTAssertEqual(loaded.answers["bearings"]?.value, .cells([["61", "2.5"], ["58", "1.9"], ["70", nil]]))
        XCTAssertEqual(loaded.answers["leaks"]?.value, .choices(["None"]))
        XCTAssertEqual(loaded, form)
    }

    func testCreateRefusesAnExistingFormAndKeepsIt() throws {
        let first = try answeredForm()
        let location = try store.create(first)
        let before = try Data(contentsOf: location.formFile)
        let second = try fixture.form(name: "pump-1", createdAt: TestClock.start)
        XCTAssertThrowsError(try store.create(second)) { error in
            XCTAssertEqual(error as? StoreError, .exists(path: location.folder.path))
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
        XCTAssertEqual(Files.names(in: location.folder.deletingLastPathComponent()), ["pump-1"], "no staging folder left")
    }

    func testCreateRefusesAHostileFormName() throws {
        let form = try fixture.form(name: "../escape", createdAt: TestClock.start)
        XCTAssertThrowsError(try store.create(form))
        XCTAssertFalse(Files.exists(fixture.root.appendingPathComponent("Users")))
        XCTAssertFalse(Files.exists(fixture.root.appendingPathComponent("escape")))
    }

    func testListOfOneUserAndOfEveryone() throws {
        _ = try store.create(try answeredForm(name: "a1", user: "ana"))
        _ = try store.create(try answeredForm(name: "b1", user: "bob"))
        _ = try store.create(try answeredForm(name: "a2", user: "ana"))
        XCTAssertEqual(try store.list(.incomplete, user: "ana").forms.map(\.location.name), ["a1", "a2"])
        XCTAssertEqual(try store.list(.incomplete).forms.map(\.location.relativePath), ["Users/ana/a1", "Users/ana/a2", "Users/bob/b1"])
        XCTAssertEqual(try store.list(.completed).forms.count, 0)
        XCTAssertEqual(store.users(in: .incomplete), ["ana", "bob"])
    }

    func testListSkipsTemporaryAndHiddenEntries() throws {
        _ = try store.create(try answeredForm(name: "a1"))
        try Files.write("x", to: fixture.root.appendingPathComponent("Users/ana/.mi-tmp-123/form.json"))
        try Files.write("x", to: fixture.root.appendingPathComponent("Users/.hidden-user/f/form.json"))
        let listing = try store.list(.incomplete)
        XCTAssertEqual(listing.forms.map(\.location.name), ["a1"])
        XCTAssertEqual(listing.unreadable.count, 0)
    }

    func testMoveToCompletedIsOneRenameAndRefusesToReplace() throws {
        let location = try store.create(try answeredForm(name: "f"))
        let moved = try store.move(location, to: .completed, user: "ana", name: "f")
        XCTAssertEqual(moved.area, .completed)
        XCTAssertFalse(Files.exists(location.folder))
        XCTAssertEqual(try store.load(moved).status, .completed, "the folder decides the status")

        let again = try store.create(try answeredForm(name: "f"))
        XCTAssertThrowsError(try store.move(again, to: .completed, user: "ana", name: "f")) { error in
            XCTAssertEqual(error as? StoreError, .exists(path: moved.folder.path))
        }
        XCTAssertTrue(Files.exists(again.formFile))
        XCTAssertTrue(Files.exists(moved.formFile))
    }

    func testRemoveDeletesTheFormAndItsEmptyUserFolder() throws {
        let location = try store.create(try answeredForm(name: "f"))
        try Files.write("jpeg", to: location.folder.appendingPathComponent("Qid0(1).jpg"))
        try store.remove(location)
        XCTAssertFalse(Files.exists(location.folder))
        XCTAssertFalse(Files.exists(location.folder.deletingLastPathComponent()), "the empty user folder goes too")
        XCTAssertEqual(Files.names(in: fixture.root.appendingPathComponent("Users")), [])
    }

    // MARK: - form.json format

    func testEncodePutsTheSummaryFirst() throws {
        let form = try answeredForm()
        let data = try FormFile.encode(form)
        let text = String(decoding: data, as: UTF8.self)
        let marker = try XCTUnwrap(text.range(of: #","answers":"#), text)
        XCTAssertEqual(text.components(separatedBy: #","answers":"#).count, 2, "the marker occurs exactly once")
        let head = String(text[..<marker.lowerBound]) + "}"
        let headObject = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(head.utf8)) as? [String: Any])
        XCTAssertEqual(Set(headObject.keys), [
            "formatVersion", "id", "name", "user", "status", "templateID", "templateTitle", "templateVersion",
            "createdAt", "updatedAt", "questions", "answered", "media",
        ])
        XCTAssertEqual(headObject["name"] as? String, "pump-1")
        let tail = String(text[marker.upperBound...])
        XCTAssertTrue(tail.contains(#""template":"#), "the template copy is in the body")
        XCTAssertTrue(data.last == UInt8(ascii: "\n"))
    }

    func testSummaryCountsAnsweredQuestionsAndMedia() throws {
        let summary = try answeredForm().summary
        XCTAssertEqual(summary.questions, 9)
        XCTAssertEqual(summary.answered, 8, "noise has a comment only, which counts; leak_photo is not relevant (no leak); checks has nothing")
        XCTAssertEqual(summary.media, 1)
        XCTAssertEqual(summary.templateID, TemplateFixture.sampleID)
        XCTAssertEqual(summary.templateVersion, 4)
    }

    func testDecodeSummaryReadsOnlyTheHeaderKeys() throws {
        let form = try answeredForm()
        let data = try FormFile.encode(form)
        // The body is never decoded: a body no form could have still gives the summary.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var odd = object
        odd["answers"] = ["not": ["an", "answer", ["{\"}": "]\\"]]]
        odd["template"] = 5
        let oddData = try JSONSerialization.data(withJSONObject: odd)
        XCTAssertEqual(try FormFile.decodeSummary(oddData), form.summary)
        XCTAssertThrowsError(try FormFile.decode(oddData), "the whole form cannot be read")
    }

    func testDecodeSummaryWhateverTheLayout() throws {
        let form = try answeredForm()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try FormFile.encode(form)) as? [String: Any])
        // Pretty-printed with spaces after the colons, keys in another order (body first).
        let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted])
        XCTAssertEqual(try FormFile.decodeSummary(pretty), form.summary)
        func member(_ key: String, _ separator: String) throws -> String {
            let value = try JSONSerialization.data(withJSONObject: try XCTUnwrap(object[key]), options: [.fragmentsAllowed])
            return "\"\(key)\"" + separator + String(decoding: value, as: UTF8.self)
        }
        let bodyKeys = ["answers", "audit", "foremanComments", "template"]
        let body = try bodyKeys.filter { object[$0] != nil }.map { try member($0, ": ") }
        let header = try object.keys.filter { !bodyKeys.contains($0) }.sorted().reversed().map { try member($0, " :\t") }
        let reordered = Data(("{\n  " + (body + header).joined(separator: ",\n  ") + "\n}\n").utf8)
        XCTAssertEqual(try FormFile.decode(reordered), try FormFile.decode(try FormFile.encode(form)), "the reordered file is the same form")
        XCTAssertEqual(try FormFile.decodeSummary(reordered), form.summary)
    }

    func testDecodeSummaryOfBrokenFilesSaysWhatIsWrong() throws {
        let data = try FormFile.encode(try answeredForm())
        for broken in [Data(), Data("[1, 2]".utf8), data.prefix(data.count / 2), Data("{\"id\": ".utf8)] {
            XCTAssertThrowsError(try FormFile.decodeSummary(broken)) { error in
                XCTAssertTrue(error is FormFileError, "\(error)")
            }
        }
    }

    func testReadSummaryOfALargeForm() throws {
        var form = try answeredForm()
        form.answers["notes"] = Answer(value: .text(String(repeating: "long text ", count: 2_000)))
        let location = try store.create(form)
        XCTAssertGreaterThan(try Data(contentsOf: location.formFile).count, 4096)
        XCTAssertEqual(try store.readSummary(location), form.summary)
    }

    func testFormWrittenByANewerFormatIsRefused() throws {
        let data = try FormFile.encode(try answeredForm())
        let newer = String(decoding: data, as: UTF8.self).replacingOccurrences(of: #""formatVersion":1"#,
                                                                               with: #""formatVersion":99"#)
        XCTAssertThrowsError(try FormFile.decode(Data(newer.utf8))) { error in
            XCTAssertTrue(String(describing: error).contains("newer"), "\(error)")
        }
    }

    // MARK: - Corrupted form.json

    private func assertCorruptedFormIsListedApart(_ bytes: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        let good1 = try store.create(try answeredForm(name: "a-good"))
        let bad = try store.create(try answeredForm(name: "b-bad"))
        let good2 = try store.create(try answeredForm(name: "c-good"))
        try bytes.write(to: bad.formFile)

        let listing = try store.list(.incomplete, user: "ana")
        XCTAssertEqual(listing.forms.map(\.location.folder.path), [good1.folder.path, good2.folder.path],
                       file: file, line: line)
        XCTAssertEqual(listing.unreadable.map(\.location.folder.path), [bad.folder.path], file: file, line: line)
        XCTAssertTrue(listing.unreadable.first?.reason.contains(bad.formFile.path) == true,
                      "names the file: \(listing.unreadable.first?.reason ?? "")", file: file, line: line)

        XCTAssertThrowsError(try store.load(bad), file: file, line: line) { error in
            guard case StoreError.unreadableForm(let path, _)? = error as? StoreError else {
                return XCTFail("expected unreadableForm, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(path, bad.formFile.path, file: file, line: line)
        }
        let sweep = try store.sweep(expiryDays: 7, now: TestClock.start.addingTimeInterval(30 * day))
        XCTAssertEqual(sweep.unreadable.map(\.location.folder.path), [bad.folder.path], file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: bad.formFile), bytes, "the corrupted file is left byte for byte", file: file, line: line)
    }

    func testGarbageFormJSONIsListedAsUnreadableAndLeftUntouched() throws {
        try assertCorruptedFormIsListedApart(Data([0x00, 0xFF, 0x13, 0x37]) + Data("not json at all".utf8))
    }

    func testTruncatedFormJSONIsListedAsUnreadableAndLeftUntouched() throws {
        let data = try FormFile.encode(try answeredForm())
        let marker = try XCTUnwrap(data.firstRange(of: Data(#","answers":"#.utf8)))
        // Cut inside the summary.
        try assertCorruptedFormIsListedApart(Data(data[..<(marker.lowerBound / 2)]))
    }

    func testWrongShapeFormJSONIsListedAsUnreadableAndLeftUntouched() throws {
        try assertCorruptedFormIsListedApart(Data(#"{"formatVersion": 1, "name": ["not", "a", "form"], "answers": {}}"#.utf8))
    }

    func testJSONArrayFormJSONIsListedAsUnreadable() throws {
        try assertCorruptedFormIsListedApart(Data("[1, 2, 3]\n".utf8))
    }

    func testEmptyFormJSONIsListedAsUnreadable() throws {
        try assertCorruptedFormIsListedApart(Data())
    }

    func testMissingFormJSONIsListedAsUnreadable() throws {
        _ = try store.create(try answeredForm(name: "a-good"))
        let bad = try store.create(try answeredForm(name: "b-bad"))
        try FileManager.default.removeItem(at: bad.formFile)
        let listing = try store.list(.incomplete)
        XCTAssertEqual(listing.forms.map(\.location.name), ["a-good"])
        XCTAssertEqual(listing.unreadable.map(\.location.folder.path), [bad.folder.path])
    }

    // MARK: - Messages

    func testMessagesArePostedReadAndCleared() throws {
        XCTAssertEqual(try store.messages(for: "ana"), [])
        let first = UserMessage(at: TestClock.start, text: "form x was reassigned to bob")
        let second = UserMessage(at: TestClock.start.addingTimeInterval(60), text: "second")
        try store.post(first, to: "ana")
        try store.post(second, to: "ana")
        XCTAssertEqual(try store.messages(for: "ana"), [first, second])
        XCTAssertTrue(Files.exists(fixture.root.appendingPathComponent("Errors/ana.json")))
        try store.clearMessages(for: "ana")
        XCTAssertEqual(try store.messages(for: "ana"), [])
    }

    func testCorruptedMessagesFileIsAnErrorNotACrash() throws {
        try Files.write("{oops", to: fixture.root.appendingPathComponent("Errors/ana.json"))
        XCTAssertThrowsError(try store.messages(for: "ana"))
        XCTAssertThrowsError(try store.post(UserMessage(at: TestClock.start, text: "x"), to: "ana"))
        XCTAssertEqual(try String(contentsOf: fixture.root.appendingPathComponent("Errors/ana.json"), encoding: .utf8), "{oops")
    }
}

final class HeaderValueTests: XCTestCase {
    func testDatesAsMIWritesThemMatchTheISO8601Decoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 86_399 * 37.0) + [0, 951_782_400, 1_709_164_800] {
            let date = Date(timeIntervalSince1970: seconds)
            let raw = Array(try encoder.encode(date))
            XCTAssertEqual(HeaderValue.date(raw), date, String(decoding: raw, as: UTF8.self))
        }
    }

    func testValuesItCannotReadFallBack() {
        XCTAssertNil(HeaderValue.date(Array(#""2026-11-23T06:56:03.123Z""#.utf8)), "fractional seconds: the decoder reads them")
        XCTAssertNil(HeaderValue.date(Array(#""2026-13-23T06:56:03Z""#.utf8)))
        XCTAssertNil(HeaderValue.date(Array(#""2026-11-23 06:56:03Z""#.utf8)))
        XCTAssertNil(HeaderValue.string(Array(#""a\"b""#.utf8)), "escapes: the decoder reads them")
        XCTAssertEqual(HeaderValue.string(Array(#""Ñuñoa""#.utf8)), "Ñuñoa")
        XCTAssertNil(HeaderValue.int(Array("1.5".utf8)))
    }

    func testAFormWithEscapedTextStillHasItsSummary() throws {
        var form = Form(name: "quote \"x\"", user: "ana", template: try TemplateCoding().decode(Data(TemplateFixture.sampleJSON.utf8), source: "sample"),
                        createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        form.returnedAt = Date(timeIntervalSince1970: 1_700_000_100)
        XCTAssertEqual(try FormFile.decodeSummary(try FormFile.encode(form)), form.summary)
    }
}
