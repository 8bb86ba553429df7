import Foundation
import MIKit
import XCTest

/// `UTCDay`: the one parser of date filters (listing, statistics, exports, `--from/--to`).
final class UTCDayTests: XCTestCase {
    func testADayIsItsStartOrTheStartOfTheNext() throws {
        XCTAssertEqual(try UTCDay.parse("2026-03-02", parameter: "from", endOfDay: false).timeIntervalSince1970, 1_772_409_600)
        XCTAssertEqual(try UTCDay.parse("2026-03-02", parameter: "to", endOfDay: true).timeIntervalSince1970, 1_772_496_000)
        XCTAssertEqual(try UTCDay.parse("2024-02-29", parameter: "from", endOfDay: false).timeIntervalSince1970, 1_709_164_800)
    }

    func testAnInstantIsInclusiveToTheSecondAsAnEnd() throws {
        XCTAssertEqual(try UTCDay.parse("2026-03-02T09:00:00Z", parameter: "to", endOfDay: true).timeIntervalSince1970, 1_772_442_001)
        XCTAssertEqual(try UTCDay.parse("2026-03-02T10:00:00.750+01:00", parameter: "from", endOfDay: false).timeIntervalSince1970,
                       1_772_442_000)
    }

    func testBadDaysAreRefusedNamingTheParameter() {
        for text in ["2026-02-30", "2025-02-29", "2026-13-01", "yesterday", "2026-3-02", "+026-03-02", "", "2026-03-02 09:00"] {
            XCTAssertThrowsError(try UTCDay.parse(text, parameter: "--from", endOfDay: false), text) { error in
                XCTAssertEqual((error as? UTCDayError)?.failureClass, .usage)
                XCTAssertTrue((error as? UTCDayError)?.errorDescription?.hasPrefix("--from is") ?? false)
            }
        }
    }

    func testDayStringIsTheUTCDay() {
        XCTAssertEqual(UTCDay.string(Date(timeIntervalSince1970: 1_772_409_600)), "2026-03-02")
        XCTAssertEqual(UTCDay.string(Date(timeIntervalSince1970: 1_772_495_999)), "2026-03-02")
        XCTAssertEqual(UTCDay.string(Date(timeIntervalSince1970: 0)), "1970-01-01")
        XCTAssertEqual(UTCDay.string(Date(timeIntervalSince1970: -1)), "1969-12-31")
        XCTAssertEqual(UTCDay.string(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29")
    }

    func testParseAndStringAgreeOverManyDays() throws {
        for day in stride(from: -800, to: 30_000, by: 97) {
            let date = Date(timeIntervalSince1970: TimeInterval(day) * 86_400)
            XCTAssertEqual(try UTCDay.parse(UTCDay.string(date), parameter: "from", endOfDay: false), date)
        }
    }

    func testToBeforeFromIsRefused() {
        XCTAssertThrowsError(try StatisticsFilters.dates(from: "2026-03-05", to: "2026-03-04", names: ("--from", "--to"))) { error in
            XCTAssertEqual(error as? UTCDayError, .invalid(parameter: "--to", value: "2026-03-04", expected: "a day on or after --from"))
        }
        XCTAssertNoThrow(try StatisticsFilters.dates(from: "2026-03-05", to: "2026-03-05"))
    }
}
