import Foundation
import MIKit
import XCTest

/// `OffsetDateTime`: what a `dateTime` question takes and stores — the wall clock where it was
/// answered and that zone's offset.
final class OffsetDateTimeTests: XCTestCase {
    let mexico = context("2026-11-26T20:00:00Z", "America/Mexico_City")
    let newYork = zone("America/New_York")
    let berlin = zone("Europe/Berlin")

    func parse(_ text: String, _ zone: TimeZone) throws -> String {
        try OffsetDateTime.parse(text, timeZone: zone).isoString
    }

    func testWithoutAnOffsetTheAnsweringZonesOffsetIsStored() throws {
        XCTAssertEqual(try OffsetDateTime.parse("2026-11-26T14:30", context: mexico).isoString, "2026-11-26T14:30:00-06:00")
        XCTAssertEqual(try parse("2026-11-26T14:30:05", berlin), "2026-11-26T14:30:05+01:00")
        XCTAssertEqual(try parse("2026-07-01T14:30", berlin), "2026-07-01T14:30:00+02:00", "summer time")
        XCTAssertEqual(try parse("2026-11-26 14:30", newYork), "2026-11-26T14:30:00-05:00", "a space for the T")
        XCTAssertEqual(try parse("2026-11-26t14:30", zone("UTC")), "2026-11-26T14:30:00+00:00")
        XCTAssertEqual(try parse("2026-11-26T14:30", zone("Asia/Kathmandu")), "2026-11-26T14:30:00+05:45")
        XCTAssertEqual(try parse("2024-02-29T23:59:59", zone("Pacific/Kiritimati")), "2024-02-29T23:59:59+14:00")
    }

    func testAnOffsetGivenIsKept() throws {
        XCTAssertEqual(try parse("2026-11-26T14:30+01:00", newYork), "2026-11-26T14:30:00+01:00")
        XCTAssertEqual(try parse("2026-11-26T14:30:05Z", newYork), "2026-11-26T14:30:05+00:00")
        XCTAssertEqual(try parse("2026-11-26T14:30:05z", newYork), "2026-11-26T14:30:05+00:00")
        XCTAssertEqual(try parse("2026-11-26T14:30-0600", newYork), "2026-11-26T14:30:00-06:00")
        XCTAssertEqual(try parse("2026-11-26T14:30+0545", newYork), "2026-11-26T14:30:00+05:45")
        XCTAssertEqual(try parse("2026-11-26T14:30-03", newYork), "2026-11-26T14:30:00-03:00")
        XCTAssertEqual(try parse("2026-11-26T14:30 +05:30", newYork), "2026-11-26T14:30:00+05:30")
        XCTAssertEqual(try parse("2026-11-26T14:30-12:00", newYork), "2026-11-26T14:30:00-12:00")
        XCTAssertEqual(try parse("2026-11-26T14:30+14:00", newYork), "2026-11-26T14:30:00+14:00")
    }

    func testBadOffsetsAreRefused() {
        XCTAssertEqual(refusal { try self.parse("2026-11-26T14:30+15:00", self.newYork) }, "the offset \"+15:00\" is outside −12:00 to +14:00")
        XCTAssertEqual(refusal { try self.parse("2026-11-26T14:30-12:30", self.newYork) }, "the offset \"-12:30\" is outside −12:00 to +14:00")
        XCTAssertEqual(refusal { try self.parse("2026-11-26T14:30+01:60", self.newYork) }, "the offset \"+01:60\" has minute 60 — minutes are 00 to 59")
        for text in ["2026-11-26T14:30+1:00", "2026-11-26T14:30+01:0", "2026-11-26T14:30+", "2026-11-26T14:30+0a:00",
                     "2026-11-26T14:30+010:00", "2026-11-26T14:30+01:00:00"] {
            XCTAssertTrue(refusal { try self.parse(text, self.newYork) }.contains("has an offset that cannot be read"), text)
        }
    }

    func testAWallTimeTheZoneSkipsIsRefusedNamingTheJump() {
        XCTAssertEqual(refusal { try self.parse("2026-03-08T02:30", self.newYork) },
                       "2026-03-08T02:30 does not exist in America/New_York: the clocks jumped from 02:00 to 03:00 — give a time before or after the change")
        XCTAssertEqual(refusal { try self.parse("2026-03-29T02:00", self.berlin) },
                       "2026-03-29T02:00 does not exist in Europe/Berlin: the clocks jumped from 02:00 to 03:00 — give a time before or after the change")
        XCTAssertEqual(refusal { try self.parse("2026-10-04T02:15", zone("Australia/Lord_Howe")) },
                       "2026-10-04T02:15 does not exist in Australia/Lord_Howe: the clocks jumped from 02:00 to 02:30 — give a time before or after the change")
        // Either side of the gap exists.
        XCTAssertEqual(try? parse("2026-03-08T01:59:59", newYork), "2026-03-08T01:59:59-05:00")
        XCTAssertEqual(try? parse("2026-03-08T03:00", newYork), "2026-03-08T03:00:00-04:00")
        // With an offset the instant is exact, so the zone's gap does not matter.
        XCTAssertEqual(try? parse("2026-03-08T02:30-05:00", newYork), "2026-03-08T02:30:00-05:00")
    }

    func testAWallTimeTheZoneRepeatsIsItsFirstOccurrence() throws {
        XCTAssertEqual(try parse("2026-11-01T01:30", newYork), "2026-11-01T01:30:00-04:00")
        XCTAssertEqual(try parse("2026-10-25T02:30", berlin), "2026-10-25T02:30:00+02:00")
        XCTAssertEqual(try parse("2026-11-01T01:30-05:00", newYork), "2026-11-01T01:30:00-05:00", "the second, when said")
        XCTAssertEqual(try parse("2026-11-01T02:00", newYork), "2026-11-01T02:00:00-05:00", "after the repeated hour")
        let first = try OffsetDateTime.parse("2026-11-01T01:30", timeZone: newYork)
        let second = try OffsetDateTime.parse("2026-11-01T01:30-05:00", timeZone: newYork)
        XCTAssertEqual(second.secondsSinceEpoch - first.secondsSinceEpoch, 3600)
    }

    func testNowIsTheInstantWithTheZonesOffset() throws {
        XCTAssertEqual(try OffsetDateTime.parse("now", context: mexico).isoString, "2026-11-26T14:00:00-06:00")
        XCTAssertEqual(OffsetDateTime.now(context("2026-07-01T12:00:00.5Z", "Europe/Berlin")).isoString, "2026-07-01T14:00:00+02:00")
        XCTAssertEqual(OffsetDateTime.now(context("2026-12-31T23:30:00Z", "Asia/Tokyo")).isoString, "2027-01-01T08:30:00+09:00")
        XCTAssertEqual(OffsetDateTime.now(mexico).secondsSinceEpoch, Int(mexico.now.timeIntervalSince1970))
    }

    func testTheInstantIsExactAndOrdersAcrossOffsets() throws {
        let utc = zone("UTC")
        XCTAssertEqual(try OffsetDateTime.parse("1970-01-01T00:00Z", timeZone: utc).secondsSinceEpoch, 0)
        let stored = try OffsetDateTime.parse("2026-11-26T14:30:00-06:00", timeZone: utc)
        XCTAssertEqual(stored.instant, try Date("2026-11-26T20:30:00Z", strategy: .iso8601))
        XCTAssertEqual(try OffsetDateTime.parse("2026-11-26T14:30+01:00", timeZone: utc),
                       try OffsetDateTime.parse("2026-11-26T13:30Z", timeZone: utc), "the same instant")
        let values = try ["2026-11-26T14:30+01:00", "2026-11-26T09:00-06:00", "2026-11-26T14:00Z"].map {
            try OffsetDateTime.parse($0, timeZone: utc)
        }
        XCTAssertEqual(values.sorted().map(\.isoString),
                       ["2026-11-26T14:30:00+01:00", "2026-11-26T14:00:00+00:00", "2026-11-26T09:00:00-06:00"])
        let min = try OffsetDateTime.parse("2026-11-26T08:00-06:00", timeZone: utc)
        XCTAssertEqual(refusal { try OffsetDateTime.parse("2026-11-26T13:59Z", timeZone: utc).checked(min: min, max: nil) },
                       "2026-11-26T13:59:00+00:00 is before the earliest allowed date and time, 2026-11-26T08:00:00-06:00")
        XCTAssertEqual(try OffsetDateTime.parse("2026-11-26T14:00Z", timeZone: utc).checked(min: min, max: nil).isoString,
                       "2026-11-26T14:00:00+00:00")
    }

    func testTheDateAndTimePartsAreCheckedAsTheirOwnTypes() {
        XCTAssertEqual(refusal { try self.parse("2026-02-30T10:00", self.newYork) }, "2026-02-30 does not exist: February 2026 has 28 days")
        XCTAssertTrue(refusal { try self.parse("2026-11-26T25:00", self.newYork) }.hasPrefix("there is no hour 25"))
        XCTAssertTrue(refusal { try self.parse("2026-11-26T24:60", self.newYork) }.hasPrefix("there is no hour 24"))
        XCTAssertTrue(refusal { try self.parse("03/04/2026 14:30", self.newYork) }.contains("is ambiguous"))
        XCTAssertTrue(refusal { try self.parse("3.4.2026T14:30", self.newYork) }.contains("is ambiguous"))
        XCTAssertEqual(refusal { try self.parse("2026-11-26", self.newYork) },
                       "\"2026-11-26\" has no time — write it as \(OffsetDateTime.accepted)")
    }

    func testHostileTextIsRefused() {
        for text in ["", "now-ish", "T14:30", "2026-11-26T", "2026-11-26TT14:30", "today 14:30", "2026-11-26T14:30:05.123Z",
                     String(repeating: "2026-11-26T14:30", count: 1000), "2026-11-26T14:30+01:00\u{0}", "２０２６-11-26T14:30",
                     "2026-11-26T14:30Z+01:00", "99999-11-26T14:30"] {
            let rule = refusal { try OffsetDateTime.parse(text, context: self.mexico) }
            XCTAssertFalse(rule.isEmpty, text)
            XCTAssertLessThan(rule.count, 400, text.prefix(30) + ": " + rule)
            XCTAssertFalse(rule.unicodeScalars.contains { $0.value == 0 })
        }
    }
}
