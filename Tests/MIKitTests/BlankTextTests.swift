import Foundation
@testable import MIKit
import XCTest

/// `BlankText` answers what Foundation's `trimmingCharacters(in:).isEmpty` answers, scalar for scalar.
final class BlankTextTests: XCTestCase {
    func testTheSetsAreFoundationsForEveryScalar() {
        // Foundation trims UTF-16 code units: only scalars of the Basic Multilingual Plane can be
        // members; a few planes past it are checked too.
        for value in UInt32(0)...0x2FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(BlankText.isSpace(scalar), CharacterSet.whitespaces.contains(scalar), "U+\(String(value, radix: 16))")
            XCTAssertEqual(BlankText.isSpaceOrNewline(scalar), CharacterSet.whitespacesAndNewlines.contains(scalar),
                           "U+\(String(value, radix: 16))")
        }
    }

    func testBlankTextsAsTrimmingSaysThem() {
        let texts = ["", " ", "\t", "\n", " \n ", "\u{A0}", "\u{200B}", "\u{2028}", "\u{3000}x", "x", " x ", "\u{85}",
                     " \u{301}", "é", "\r\n", "\u{2029}\u{2029}", "\u{FEFF}", "\u{180E}", "  -  ", "\u{1F600}"]
        for text in texts {
            XCTAssertEqual(BlankText.isBlank(text), text.trimmingCharacters(in: .whitespaces).isEmpty, text.debugDescription)
            XCTAssertEqual(BlankText.isBlankOrNewlines(text), text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
                           text.debugDescription)
            XCTAssertEqual(BlankText.containsSpaceOrNewline(text),
                           text.unicodeScalars.contains { CharacterSet.whitespacesAndNewlines.contains($0) }, text.debugDescription)
        }
        XCTAssertTrue(BlankText.isBlank(" \u{200B}\t"))
        XCTAssertFalse(BlankText.isBlank(" \n"))
        XCTAssertTrue(BlankText.isBlankOrNewlines(" \n"))
    }
}
