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
