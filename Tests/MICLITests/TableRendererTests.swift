@testable import MICLI
import XCTest

final class TableRendererTests: XCTestCase {
    private let form = "pump-inspection-20261126-0506-north"

    private func table() -> TableRenderer {
        var table = TableRenderer(["FORM", "TEMPLATE", "UPDATED", "MEDIA", "NOTE"], wrapping: [4], droppable: [3, 2])
        table.add([form, "pump-inspection v1", "2026-11-26 05:06", "2",
                   "A long comment about the seal, the drain and a supercalifragilisticexpialidocious gauge"])
        table.add(["short", "extinguisher-check v3", "2026-11-25 17:40", "0", "ok"])
        return table
    }

    func testFreeTextGivesWayFirstAndIdentifiersStayWhole() {
        for width in stride(from: 30, through: 160, by: 5) {
            let text = table().render(width: width)
            for identifier in [form, "pump-inspection v1", "extinguisher-check v3", "2026-11-26 05:06"] {
                if width >= 95 || identifier != "2026-11-26 05:06" {
                    XCTAssertTrue(text.contains(identifier), "width \(width): \(identifier) whole\n\(text)")
                }
            }
            let fits = form.count + 2 + "extinguisher-check v3".count + 2 + TableRenderer.minimumFreeTextWidth <= width
            if fits { for line in text.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, width, "width \(width)\n\(text)") } }
        }
    }

    func testALongWordInFreeTextGetsAnEllipsisInItsMiddle() {
        let text = table().render(width: 100)
        XCTAssertTrue(text.contains("…"), text)
        XCTAssertFalse(text.contains("supercalifragilisticexpialidocious"), text)
    }

    func testColumnsAreDroppedInOrderWhenIdentifiersDoNotFit() {
        let narrow = table().render(width: 90)
        XCTAssertFalse(narrow.contains("MEDIA"), narrow)
        XCTAssertTrue(narrow.contains("UPDATED"), narrow)
        let narrower = table().render(width: 62)
        XCTAssertFalse(narrower.contains("UPDATED") || narrower.contains("MEDIA"), narrower)
        XCTAssertTrue(narrower.contains(form) && narrower.contains("NOTE"), "\n" + narrower)
    }

    func testPipedRowsAreOneLineEachAtTheirNaturalWidth() {
        let text = table().render(width: nil)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, text)
        XCTAssertTrue(lines[2].hasPrefix(form) && lines[2].hasSuffix("supercalifragilisticexpialidocious gauge"), text)
    }
}
