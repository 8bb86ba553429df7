import Foundation
import MIKit
import XCTest

/// `LocalTime`: what a `time` question takes and stores.
final class LocalTimeTests: XCTestCase {
    let berlin = context("2026-11-26T13:30:05Z", "Europe/Berlin")

    func testTimesAreReadWithOrWithoutSeconds() throws {
        XCTAssertEqual(try LocalTime.parse("14:30", context: berlin).isoString, "14:30:00")
        XCTAssertEqual(try LocalTime.parse("14:30:05").isoString, "14:30:05")
        XCTAssertEqual(try LocalTime.parse("9:05").isoString, "09:05:00")
        XCTAssertEqual(try LocalTime.parse("00:00").isoString, "00:00:00")
        XCTAssertEqual(try LocalTime.parse("23:59:59").isoString, "23:59:59")
        XCTAssertEqual(try LocalTime.parse("14:30").shortString, "14:30")
        XCTAssertEqual(try LocalTime.parse("14:30:05").shortString, "14:30:05")
    }

    func testImpossibleTimesAreRefusedNamingTheField() {
        XCTAssertTrue(refusal { try LocalTime.parse("25:00") }.hasPrefix("there is no hour 25 (hours are 00 to 23)"))
        XCTAssertTrue(refusal { try LocalTime.parse("24:60") }.hasPrefix("there is no hour 24"))
        XCTAssertTrue(refusal { try LocalTime.parse("14:60") }.hasPrefix("there is no minute 60"))
        XCTAssertTrue(refusal { try LocalTime.parse("14:30:60") }.hasPrefix("there is no second 60"))
        XCTAssertEqual(refusal { try LocalTime.parse("24:00") }, "24:00 is not a time of day — write 00:00 (the start of the next day) or 23:59")
        XCTAssertTrue(refusal { try LocalTime.parse("24:00:00") }.hasPrefix("24:00 is not a time of day"))
    }

    func testTwelveHourTimesAreRefusedWithTheTwentyFourHourForm() {
        XCTAssertEqual(refusal { try LocalTime.parse("2:30 pm") }, "\"2:30 pm\": use the 24-hour clock — write 14:30")
        XCTAssertEqual(refusal { try LocalTime.parse("12:15AM") }, "\"12:15AM\": use the 24-hour clock — write 00:15")
        XCTAssertEqual(refusal { try LocalTime.parse("12 p.m.") }, "\"12 p.m.\": use the 24-hour clock — write 12:00")
        XCTAssertEqual(refusal { try LocalTime.parse("11 am") }, "\"11 am\": use the 24-hour clock — write 11:00")
    }

    func testNowIsTheWallClockOfTheAnsweringZone() throws {
        XCTAssertEqual(try LocalTime.parse("now", context: berlin).isoString, "14:30:05")
        XCTAssertEqual(try LocalTime.parse("Now", context: context("2026-11-26T13:30:05Z", "America/Mexico_City")).isoString, "07:30:05")
        XCTAssertEqual(LocalTime.now(context("2026-11-26T13:30:05.999Z", "UTC")).isoString, "13:30:05", "seconds are cut, not rounded")
        XCTAssertEqual(LocalTime.now(context("2026-11-26T13:30:05Z", "Asia/Kathmandu")).isoString, "19:15:05", "a +05:45 zone")
    }

    func testMalformedAndHostileTextIsRefused() {
        for text in ["", "1430", "14.30", "14:3", "14:300", "014:30", "-1:30", "+1:30", "14:30:5", "14:30:05.250", "14:30:05:00",
                     "14h30", "noon", "١٤:٣٠", "14:30\n", "14:30 \u{7}", String(repeating: "1", count: 5000) + ":00",
                     "99999999999999999999:00", "13 pm"] {
            let rule = refusal { try LocalTime.parse(text, context: self.berlin) }
            XCTAssertTrue(rule.contains("24-hour clock"), "\(text.prefix(20)): \(rule)")
            XCTAssertLessThan(rule.count, 300)
        }
    }

    func testBoundsAndOrder() throws {
        let opens = try LocalTime.parse("08:00"), closes = try LocalTime.parse("17:30")
        XCTAssertEqual(try LocalTime.parse("08:00").checked(min: opens, max: closes).isoString, "08:00:00")
        XCTAssertEqual(try LocalTime.parse("17:30").checked(min: opens, max: closes).isoString, "17:30:00")
        XCTAssertEqual(refusal { try LocalTime.parse("07:59:59").checked(min: opens, max: closes) },
                       "07:59:59 is before the earliest allowed time, 08:00:00")
        XCTAssertEqual(refusal { try LocalTime.parse("17:30:01").checked(min: opens, max: closes) },
                       "17:30:01 is after the latest allowed time, 17:30:00")
        XCTAssertLessThan(try LocalTime.parse("09:59:59"), try LocalTime.parse("10:00"))
        XCTAssertEqual(try LocalTime.parse("23:59:59").secondOfDay, 86_399)
    }
}
