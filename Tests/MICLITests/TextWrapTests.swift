@testable import MICLI
import XCTest

final class TextWrapTests: XCTestCase {
    func testLinesBreakBetweenWordsNeverInside() {
        let text = "the store is busy: another mi has held its lock for 31 s — wait for it to finish and try again"
        for width in 10...100 {
            let lines = TextWrap.lines(text, width: width)
            XCTAssertEqual(lines.joined(separator: " "), text, "width \(width)")
            for line in lines where line.contains(" ") { XCTAssertLessThanOrEqual(line.count, width, "width \(width): «\(line)»") }
        }
        XCTAssertEqual(TextWrap.lines(text, width: 80).last, "and try again")
    }

    func testAWordLongerThanTheLineStaysWholeOnItsOwnLine() {
        let path = "/var/lib/mi/Documents/CompletedMIs/ana/pump-inspection-20261126-0506"
        XCTAssertEqual(TextWrap.lines("see \(path) now", width: 20), ["see", path, "now"])
    }

    func testACommandToPasteIsNeverBroken() {
        XCTAssertEqual(TextWrap.lines("Started. Fill it with: mi fill 'Pump P-101 north'", width: 20),
                       ["Started. Fill it", "with:", "mi fill 'Pump P-101 north'"])
        XCTAssertEqual(TextWrap.lines("no form — did you mean 'Pump P-101 north'? (`mi list` shows them)", width: 16),
                       ["no form — did", "you mean", "'Pump P-101 north'?", "(`mi list` shows", "them)"])
        XCTAssertEqual(TextWrap.lines("answer them with `mi fill 'a b'` or `mi answer`", width: 12),
                       ["answer them", "with", "`mi fill 'a b'`", "or", "`mi answer`"])
        // Apostrophes in words, and a quote never closed, leave the words as they are.
        XCTAssertEqual(TextWrap.lines("the form's answers aren't kept", width: 12), ["the form's", "answers", "aren't kept"])
        XCTAssertEqual(TextWrap.lines("an 'open quote here", width: 7), ["an", "'open", "quote", "here"])
    }

    func testFittingKeepsShortLinesAndIndentsContinuations() {
        XCTAssertEqual(TextWrap.fitting("short\n  indented line that is long", width: 16), "short\n  indented line\n  that is long")
    }

    func testTheMiddleEllipsisKeepsBothEnds() {
        XCTAssertEqual(TextWrap.middleEllipsis("pump-inspection-20261126-0506", width: 12), "pump-i…-0506")
        XCTAssertEqual(TextWrap.middleEllipsis("pump-inspection-20261126-0506", width: 12).count, 12)
        XCTAssertEqual(TextWrap.middleEllipsis("short", width: 12), "short")
        XCTAssertEqual(TextWrap.middleEllipsis("abc", width: 1), "a")
    }
}
