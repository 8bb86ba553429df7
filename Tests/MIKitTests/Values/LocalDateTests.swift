import Foundation
import MIKit
import XCTest

/// `LocalDate`: what a `date` question takes and stores.
final class LocalDateTests: XCTestCase {
    let mexico = context("2026-11-26T20:00:00Z", "America/Mexico_City")

    func testISODatesAreReadAndStoredPadded() throws {
        XCTAssertEqual(try LocalDate.parse("2026-11-26", context: mexico).isoString, "2026-11-26")
        XCTAssertEqual(try LocalDate.parse("  2026-03-04 ", context: mexico).isoString, "2026-03-04")
        XCTAssertEqual(try LocalDate.parse("2026-3-4", context: mexico).isoString, "2026-03-04")
        XCTAssertEqual(try LocalDate.parse("0001-01-01").isoString, "0001-01-01")
        XCTAssertEqual(try LocalDate.parse("9999-12-31").isoString, "9999-12-31")
        let date = try LocalDate.parse("2026-11-26")
        XCTAssertEqual([date.year, date.month, date.day], [2026, 11, 26])
    }

    func testLeapDaysExistOnlyInLeapYears() throws {
        for year in ["2024", "2028", "2000", "2400", "1600"] {
            XCTAssertEqual(try LocalDate.parse("\(year)-02-29").day, 29, year)
        }
        for year in ["2026", "2025", "1900", "2100", "2200"] {
            XCTAssertEqual(refusal { try LocalDate.parse("\(year)-02-29") },
                           "\(year)-02-29 does not exist: February \(year) has 28 days", year)
        }
    }

    func testImpossibleDatesAreRefusedNamingTheProblem() {
        XCTAssertEqual(refusal { try LocalDate.parse("2026-02-30") }, "2026-02-30 does not exist: February 2026 has 28 days")
        XCTAssertEqual(refusal { try LocalDate.parse("2028-02-30") }, "2028-02-30 does not exist: February 2028 has 29 days")
        XCTAssertEqual(refusal { try LocalDate.parse("2026-04-31") }, "2026-04-31 does not exist: April 2026 has 30 days")
        XCTAssertEqual(refusal { try LocalDate.parse("2026-01-00") }, "2026-01-00 does not exist: January 2026 has 31 days")
        XCTAssertTrue(refusal { try LocalDate.parse("2026-13-01") }.hasPrefix("there is no month 13 (months are 01 to 12)"))
        XCTAssertTrue(refusal { try LocalDate.parse("2026-00-10") }.hasPrefix("there is no month 0"))
        XCTAssertEqual(refusal { try LocalDate.parse("0000-01-01") }, "the year 0 is outside 0001 to 9999")
    }

    func testDayMonthOrdersAreRefusedNotGuessed() {
        XCTAssertEqual(refusal { try LocalDate.parse("03/04/2026", context: self.mexico) },
                       "\"03/04/2026\" is ambiguous: it could be 4 March 2026 or 3 April 2026 — write the date as YYYY-MM-DD (2026-03-04 or 2026-04-03)")
        XCTAssertEqual(refusal { try LocalDate.parse("3.4.2026") },
                       "\"3.4.2026\" is ambiguous: it could be 4 March 2026 or 3 April 2026 — write the date as YYYY-MM-DD (2026-03-04 or 2026-04-03)")
        XCTAssertTrue(refusal { try LocalDate.parse("04-03-2026") }.contains("is ambiguous"))
        // Only one reading exists, but the order is still not read: one way of writing a date.
        XCTAssertEqual(refusal { try LocalDate.parse("25/12/2026") },
                       "\"25/12/2026\": MI does not read day/month orders — write the date as YYYY-MM-DD (2026-12-25)")
        XCTAssertEqual(refusal { try LocalDate.parse("12/25/2026") },
                       "\"12/25/2026\": MI does not read day/month orders — write the date as YYYY-MM-DD (2026-12-25)")
        XCTAssertTrue(refusal { try LocalDate.parse("05/05/2026") }.contains("MI does not read day/month orders"))
        XCTAssertTrue(refusal { try LocalDate.parse("31/31/2026") }.contains("is not a date in either day/month order"))
        XCTAssertEqual(refusal { try LocalDate.parse("2026/04/03") }, "\"2026/04/03\" is not a date as MI writes them — write 2026-04-03")
        XCTAssertEqual(refusal { try LocalDate.parse("2026-011-026") }, "\"2026-011-026\" is not a date as MI writes them — write 2026-11-26")
        XCTAssertTrue(refusal { try LocalDate.parse("03/04/26") }.contains("does not say its year, month and day unambiguously"))
    }

    func testTodayIsTheDateInTheAnsweringZone() throws {
        // 2026-11-27T02:30Z is still the 26th in Mexico City (UTC−6) and already the 27th in Tokyo.
        let late = context("2026-11-27T02:30:00Z", "America/Mexico_City")
        XCTAssertEqual(try LocalDate.parse("today", context: late).isoString, "2026-11-26")
        XCTAssertEqual(try LocalDate.parse("TODAY", context: context("2026-11-27T02:30:00Z", "Asia/Tokyo")).isoString, "2026-11-27")
        XCTAssertEqual(LocalDate.today(context("2024-02-29T12:00:00Z", "UTC")).isoString, "2024-02-29")
        XCTAssertEqual(LocalDate.today(context("1969-12-31T23:59:59Z", "UTC")).isoString, "1969-12-31")
    }

    func testHostileAndMalformedTextIsRefusedWithTheAcceptedForms() {
        let hostile = ["", "   ", "yesterday", "2026-11-26x", "2026--11-26", "２０２６-11-26", "٢٠٢٦-١١-٢٦", "-2026-11-26",
                       "+2026-11-26", "20261126", "2026-11", "2026-11-26-01", "2026-1e1-01",
                       String(repeating: "9", count: 10_000), "2026-11-26\u{0}", "\u{202E}2026-11-26", "99999-01-01",
                       "9223372036854775808-01-01"]
        for text in hostile {
            let rule = refusal { try LocalDate.parse(text, context: self.mexico) }
            XCTAssertTrue(rule.contains("YYYY-MM-DD"), "\(text.prefix(20)): \(rule)")
            XCTAssertLessThan(rule.count, 300, "a message stays short")
            XCTAssertFalse(rule.unicodeScalars.contains { $0.value < 32 || $0 == "\u{202E}" }, "no control characters in \(rule)")
        }
    }

    func testMinimumAndMaximumAreInclusive() throws {
        let min = try LocalDate.parse("2026-01-01"), max = try LocalDate.parse("2026-12-31")
        XCTAssertEqual(try LocalDate.parse("2026-01-01").checked(min: min, max: max).isoString, "2026-01-01")
        XCTAssertEqual(try LocalDate.parse("2026-12-31").checked(min: min, max: max).isoString, "2026-12-31")
        XCTAssertEqual(refusal { try LocalDate.parse("2025-12-31").checked(min: min, max: max) },
                       "2025-12-31 is before the earliest allowed date, 2026-01-01")
        XCTAssertEqual(try LocalDate.parse("2027-01-01").checked(min: min, max: nil).isoString, "2027-01-01")
        XCTAssertEqual(refusal { try LocalDate.parse("2027-01-01").checked(min: nil, max: max) },
                       "2027-01-01 is after the latest allowed date, 2026-12-31")
    }

    func testDatesCompareAndCountDays() throws {
        let dates = try ["2026-11-26", "2024-02-29", "2026-01-09", "1999-12-31", "2026-11-25"].map { try LocalDate.parse($0) }
        XCTAssertEqual(dates.sorted().map(\.isoString), ["1999-12-31", "2024-02-29", "2026-01-09", "2026-11-25", "2026-11-26"])
        XCTAssertEqual(try LocalDate.parse("2024-02-28").adding(days: 1)?.isoString, "2024-02-29")
        XCTAssertEqual(try LocalDate.parse("2024-02-29").adding(days: 1)?.isoString, "2024-03-01")
        XCTAssertEqual(try LocalDate.parse("2026-12-31").adding(days: 1)?.isoString, "2027-01-01")
        XCTAssertNil(try LocalDate.parse("9999-12-31").adding(days: 1))
        XCTAssertEqual(try LocalDate.parse("1970-01-01").daysSinceEpoch, 0)
        XCTAssertEqual(try LocalDate.parse("2026-11-26").weekday, 4, "a Thursday")
        XCTAssertEqual(try LocalDate.parse("1969-12-29").weekday, 1, "a Monday before the epoch")
        XCTAssertEqual(try LocalDate.parse("2026-11-26").spelled, "26 November 2026")
    }
}
