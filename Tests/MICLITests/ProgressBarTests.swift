@testable import MICLI
import XCTest

final class ProgressBarTests: XCTestCase {
    func testTheLineFitsEveryWidthLeavingTheLastColumnFree() {
        for label in ["ana/pump-7", "ana/north-hall-boiler-room-pump-station-7-with-a-very-long-name"] {
            for width in 21...200 {
                for (sent, total) in [(Int64(0), Int64(0)), (3 << 20, 8 << 20), (8 << 20, 8 << 20), (123, 5_000_000_000)] {
                    let line = ProgressBar.line(label: label, sent: sent, total: total, rate: 1_300_000, width: width)
                    XCTAssertLessThanOrEqual(line.count, width - 1, "width \(width): «\(line)»")
                }
            }
        }
    }

    func testAWideTerminalShowsEverythingANarrowOneTheEssentials() {
        let wide = ProgressBar.line(label: "ana/pump-7", sent: 3 << 20, total: 8 << 20, rate: 1_048_576, width: 120)
        XCTAssertTrue(wide.hasPrefix("ana/pump-7 3.0 MiB / 8.0 MiB ["), wide)
        XCTAssertTrue(wide.contains("] 37% ETA 0:05 1.0 MiB/s"), wide)
        let narrow = ProgressBar.line(label: "ana/pump-7", sent: 3 << 20, total: 8 << 20, rate: 1_048_576, width: 40)
        XCTAssertEqual(narrow, "ana/pump-7 3.0 MiB / 8.0 MiB 37%")
        let final = ProgressBar.line(label: "ana/pump-7", sent: 8 << 20, total: 8 << 20, rate: 1_048_576, final: true, width: 80)
        XCTAssertTrue(final.contains("8.0 MiB / 8.0 MiB") && final.contains("100%") && !final.contains("ETA"), final)
    }
}
