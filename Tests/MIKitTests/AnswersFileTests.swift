import Foundation
import MIKit
import TestSupport
import XCTest

final class AnswersFileTests: XCTestCase {
    private func updates(_ json: String) throws -> [AnswerUpdate] {
        try Workflow.updates(fromAnswersFile: Data(json.utf8))
    }

    private func json(_ input: AnswerUpdate.Input?) -> JSONValue? {
        guard case .json(let value)? = input else { return nil }
        return value
    }

    func testPlainValuesBecomeOneUpdateEachSortedById() throws {
        let result = try updates(#"{"pressure": 4.5, "guard": true, "leaks": ["None"], "notes": "fine", "bearings": [["1", "2"], ["3", "4"], ["5", null]]}"#)
        XCTAssertEqual(result.map(\.question), ["bearings", "guard", "leaks", "notes", "pressure"])
        XCTAssertEqual(json(result[1].value), .bool(true))
        XCTAssertEqual(json(result[2].value), .array([.string("None")]))
        XCTAssertEqual(json(result[3].value), .string("fine"))
        XCTAssertEqual(json(result[4].value), .number(4.5))
        XCTAssertEqual(json(result[0].value), .array([
            .array([.string("1"), .string("2")]), .array([.string("3"), .string("4")]), .array([.string("5"), .null]),
        ]))
        XCTAssertTrue(result.allSatisfy { $0.comment == nil })
    }

    func testValueAndCommentObjects() throws {
        let result = try updates(#"{"hours": {"value": 1200, "comment": "counter hard to read"}, "guard": {"comment": "no access"}}"#)
        XCTAssertEqual(result.map(\.question), ["guard", "hours"])
        XCTAssertNil(result[0].value, "a comment alone leaves the value as it is")
        XCTAssertEqual(result[0].comment, "no access")
        XCTAssertEqual(json(result[1].value), .number(1200))
        XCTAssertEqual(result[1].comment, "counter hard to read")
    }

    /// null withdraws the answer (it used to keep the old value without a word); the comment
    /// beside it still applies.
    func testNullWithdrawsTheValueAndTheCommentBesideItApplies() throws {
        let result = try updates(#"{"notes": {"value": null, "comment": "n/a"}, "pressure": null, "guard": {"comment": "c"}}"#)
        XCTAssertEqual(result.map(\.question), ["guard", "notes", "pressure"])
        guard case .clear? = result[1].value else { return XCTFail("\(String(describing: result[1].value))") }
        XCTAssertEqual(result[1].comment, "n/a")
        guard case .clear? = result[2].value else { return XCTFail("\(String(describing: result[2].value))") }
        XCTAssertNil(result[2].comment)
        XCTAssertNil(result[0].value, "no \"value\": the value stays")
    }

    func testMalformedJSONIsOneClearError() {
        XCTAssertThrowsError(try updates(#"{"guard": tru"#)) { error in
            XCTAssertTrue(error is AnswersFileError, "\(error)")
            XCTAssertTrue(error.localizedDescription.hasPrefix("the answers file is not valid JSON"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("nothing was saved"), error.localizedDescription)
        }
    }

    func testTopLevelArrayIsRefused() {
        XCTAssertThrowsError(try updates(#"[{"guard": true}]"#)) { error in
            XCTAssertTrue(error.localizedDescription.contains("must be a JSON object of question id → value, found an array"),
                          error.localizedDescription)
        }
    }

    func testEmptyFileIsRefused() {
        XCTAssertThrowsError(try Workflow.updates(fromAnswersFile: Data())) { error in
            XCTAssertTrue(error is AnswersFileError, "\(error)")
        }
    }
}
