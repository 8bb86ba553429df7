import Foundation
import MIKit
import XCTest

/// `ListingJSON` writes exactly JSONEncoder's text (pretty, sorted keys, slashes unescaped,
/// ISO 8601 dates), and refuses what it does not write rather than writing it differently.
final class ListingJSONTests: XCTestCase {
    struct Item: Encodable {
        var name: String
        var count: Int
        var big: Int64
        var flag: Bool
        var at: Date
        var maybe: Date?
        var missing: String?
        var tags: [String]
        var empty: [Int]
        var nested: Nested
        var zeta: UInt8
    }
    struct Nested: Encodable { var b: String; var a: [Nested2] }
    struct Nested2: Encodable { var x: Int }
    struct Listing: Encodable { var completed: [Item]; var incomplete: [Item] }

    static func reference<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(value))
    }

    func item(_ name: String, at seconds: TimeInterval) -> Item {
        Item(name: name, count: -42, big: Int64.max, flag: true, at: Date(timeIntervalSince1970: seconds),
             maybe: seconds > 0 ? Date(timeIntervalSince1970: seconds + 86_400 * 400) : nil, missing: nil,
             tags: ["a/b", "ü ✓", "tab\there"], empty: [], nested: Nested(b: "q\"uote\\back", a: [Nested2(x: 1), Nested2(x: 2)]),
             zeta: 7)
    }

    func testTheTextIsJSONEncodersByteForByte() throws {
        let control = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}\u{85}/end"
        let listing = Listing(
            completed: [item("form-1", at: 1_795_000_000), item(control, at: 0), item("leap", at: 951_782_400)],
            incomplete: [item("old", at: -86_401), item("far", at: 253_300_000_000)])
        XCTAssertEqual(String(decoding: try ListingJSON.encode(listing), as: UTF8.self),
                       String(decoding: try Self.reference(listing), as: UTF8.self))
        let none = Listing(completed: [], incomplete: [])
        XCTAssertEqual(try ListingJSON.encode(none), try Self.reference(none))
    }

    func testDatesOverManyYearsMatchJSONEncoder() throws {
        struct Stamp: Encodable { var at: Date }
        var seconds: TimeInterval = -2_208_988_800   // 1900-01-01
        while seconds < 4_102_444_800 {               // 2100-01-01
            let stamp = [Stamp(at: Date(timeIntervalSince1970: seconds))]
            XCTAssertEqual(try ListingJSON.encode(stamp), try Self.reference(stamp), "\(seconds)")
            seconds += 7_919_993   // about three months, never the same day or second twice
        }
    }

    func testWhatItDoesNotWriteIsRefused() {
        struct Fraction: Encodable { var value: Double }
        struct Instant: Encodable { var at: Date }
        struct Nothing: Encodable {}
        XCTAssertThrowsError(try ListingJSON.encode(Fraction(value: 0.1)))
        XCTAssertThrowsError(try ListingJSON.encode(Instant(at: Date(timeIntervalSince1970: 1.5))), "fractional seconds")
        XCTAssertThrowsError(try ListingJSON.encode(Nothing()), "an empty object")
    }
}
