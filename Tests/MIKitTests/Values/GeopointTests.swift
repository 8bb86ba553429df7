import Foundation
import MIKit
import XCTest

/// `Geopoint`: a typed or captured location, its checks, its JSON, distances and boxes.
final class GeopointTests: XCTestCase {
    func testTypedLinesOfTwoToFourNumbers() throws {
        let plain = try Geopoint.parse("19.4326 -99.1332")
        XCTAssertEqual([plain.latitude, plain.longitude], [19.4326, -99.1332])
        XCTAssertNil(plain.altitude)
        XCTAssertNil(plain.accuracy)
        let full = try Geopoint.parse("  19.4326   -99.1332 2240 5 ")
        XCTAssertEqual(full.altitude, 2240)
        XCTAssertEqual(full.accuracy, 5)
        XCTAssertEqual(try Geopoint.parse("19.4326 -99.1332 2240").altitude, 2240)
        XCTAssertEqual(try Geopoint.parse("19.4326, -99.1332").longitude, -99.1332, "as a map copies a point")
        XCTAssertEqual(try Geopoint.parse("+19 +99.5 -12.5 0").altitude, -12.5)
        let unknownAltitude = try Geopoint.parse("19.4326 -99.1332 ? 8")
        XCTAssertNil(unknownAltitude.altitude)
        XCTAssertEqual(unknownAltitude.accuracy, 8)
    }

    func testTheGlobesEdgesAreIncludedAndNothingBeyond() throws {
        for line in ["90 180", "-90 -180", "0 0", "90.0 -180.0", "-89.999999999 179.999999999"] {
            XCTAssertNoThrow(try Geopoint.parse(line), line)
        }
        XCTAssertTrue(refusal { try Geopoint.parse("90.0000001 0") }.hasPrefix("the latitude 90.0000001 is outside −90 to 90"))
        XCTAssertTrue(refusal { try Geopoint.parse("-91 0") }.hasPrefix("the latitude -91 is outside −90 to 90"))
        XCTAssertTrue(refusal { try Geopoint.parse("0 180.5") }.hasPrefix("the longitude 180.5 is outside −180 to 180"))
        XCTAssertTrue(refusal { try Geopoint.parse("0 -181") }.hasPrefix("the longitude -181 is outside −180 to 180"))
        XCTAssertTrue(refusal { try Geopoint.parse("-99.1332 19.4326") }.hasPrefix("the latitude -99.1332 is outside"),
                      "longitude first is caught when it cannot be a latitude")
        XCTAssertEqual(refusal { try Geopoint.parse("19 -99 2240 -3") }, "the accuracy -3 m is negative — it is a distance in metres")
        XCTAssertTrue(refusal { try Geopoint.parse("19 -99 2000000") }.hasPrefix("the altitude 2000000 m is not a height on or near the Earth"))
    }

    func testNotANumberInfinityAndHugeNumbersAreRefused() {
        XCTAssertTrue(refusal { try Geopoint(latitude: .nan, longitude: 0) }.hasPrefix("the latitude nan is outside"))
        XCTAssertTrue(refusal { try Geopoint(latitude: 0, longitude: .infinity) }.hasPrefix("the longitude inf is outside"))
        XCTAssertTrue(refusal { try Geopoint(latitude: 0, longitude: 0, altitude: .nan) }.contains("not a height"))
        XCTAssertEqual(refusal { try Geopoint(latitude: 0, longitude: 0, accuracy: .nan) }, "the accuracy nan m is not a number of metres")
        XCTAssertEqual(refusal { try Geopoint(latitude: 0, longitude: 0, accuracy: .infinity) }, "the accuracy inf m is not a number of metres")
        for line in ["nan 0", "0 inf", "1e1 0", "0x10 0", "19.4 -99.1 1e400", String(repeating: "9", count: 400) + " 0",
                     ".5 0", "5. 0", "1_0 0", "NaN NaN"] {
            let rule = refusal { try Geopoint.parse(line) }
            XCTAssertTrue(rule.contains("is not a decimal number") || rule.contains("not a location") || rule.contains("outside"),
                          "\(line.prefix(20)): \(rule)")
        }
    }

    func testCommasForDecimalsAndDegreesMinutesAreRefusedWithWhatToWrite() {
        XCTAssertEqual(refusal { try Geopoint.parse("19,4326 -99,1332") },
                       "\"19,4326 -99,1332\" uses commas for decimals — write 19.4326 -99.1332")
        XCTAssertTrue(refusal { try Geopoint.parse("19°25'57\"N 99°07'59\"W") }.contains("is in degrees and minutes"))
        XCTAssertTrue(refusal { try Geopoint.parse("19.4326") }.hasPrefix("a location is 2 to 4 numbers, got 1"))
        XCTAssertTrue(refusal { try Geopoint.parse("1 2 3 4 5") }.hasPrefix("a location is 2 to 4 numbers, got 5"))
        XCTAssertTrue(refusal { try Geopoint.parse("") }.hasPrefix("no location given"))
        XCTAssertTrue(refusal { try Geopoint.parse("19.4 ? -99.1") }.hasPrefix("the longitude \"?\" is not a decimal number"))
        XCTAssertTrue(refusal { try Geopoint.parse("19.4 -99.1 ?") }.hasPrefix("the altitude \"?\" is not a decimal number"),
                      "? only stands before an accuracy")
        XCTAssertTrue(refusal { try Geopoint.parse("north \u{0}east") }.hasPrefix("the latitude \"north\" is not a decimal number"))
        XCTAssertTrue(refusal { try Geopoint.parse(String(repeating: "1 ", count: 500)) }.contains("is not a location"))
    }

    func testMinimumAccuracy() throws {
        let good = try Geopoint.parse("19.4326 -99.1332 2240 4.5")
        XCTAssertEqual(try good.checked(accuracyWithin: 5), good)
        XCTAssertEqual(try Geopoint.parse("19.4326 -99.1332 2240 5").checked(accuracyWithin: 5).accuracy, 5, "the limit itself passes")
        XCTAssertEqual(refusal { try Geopoint.parse("19.4326 -99.1332 2240 12.5").checked(accuracyWithin: 5) },
                       "the accuracy is 12.5 m, worse than the 5 m required — wait for a better fix")
        XCTAssertEqual(refusal { try Geopoint.parse("19.4326 -99.1332").checked(accuracyWithin: 5) },
                       "the accuracy of this location is unknown and must be 5 m or better — give it as the fourth number")
    }

    func testJSONRoundTripsAndRefusesWhatIsNotAPoint() throws {
        let point = try Geopoint.parse("19.4326 -99.1332 2240 5")
        XCTAssertEqual(point.json, .object(["latitude": .number(19.4326), "longitude": .number(-99.1332),
                                            "altitude": .number(2240), "accuracy": .number(5)]))
        let encoded = String(decoding: try JSONEncoder.sorted.encode(point.json), as: UTF8.self)
        XCTAssertEqual(encoded, #"{"accuracy":5,"altitude":2240,"latitude":19.4326,"longitude":-99.1332}"#)
        XCTAssertEqual(try Geopoint(json: JSONValue.parse(Data(encoded.utf8))), point)
        XCTAssertEqual(try Geopoint.parse("1.5 2.5").json, .object(["latitude": .number(1.5), "longitude": .number(2.5)]))
        XCTAssertEqual(try Geopoint(json: .string("19.4326 -99.1332")).latitude, 19.4326, "an answers file may give the typed line")
        XCTAssertEqual(try Geopoint(json: .object(["latitude": .number(1), "longitude": .number(2), "altitude": .null])).altitude, nil)
        XCTAssertEqual(refusal { try Geopoint(json: .number(3)) }, "a location is an object with latitude and longitude (or a typed line), found a number")
        XCTAssertEqual(refusal { try Geopoint(json: .object(["latitude": .number(1)])) }, "a location needs longitude")
        XCTAssertEqual(refusal { try Geopoint(json: .object(["latitude": .string("1"), "longitude": .number(2)])) },
                       "a location's latitude must be a number, found a string")
        XCTAssertEqual(refusal { try Geopoint(json: .object(["latitude": .number(1), "longitude": .number(2), "lat": .number(1)])) },
                       "a location has no key \"lat\" (keys: latitude, longitude, altitude, accuracy)")
        XCTAssertTrue(refusal { try Geopoint(json: .object(["latitude": .number(100), "longitude": .number(2)])) }.contains("outside −90 to 90"))
    }

    func testTypedStringReadsBack() throws {
        for line in ["19.4326 -99.1332", "19.4326 -99.1332 2240", "19.4326 -99.1332 2240 5", "19.4326 -99.1332 ? 5", "-0.5 0.25 -3.5 0"] {
            let point = try Geopoint.parse(line)
            XCTAssertEqual(point.typedString, line)
            XCTAssertEqual(try Geopoint.parse(point.typedString), point)
        }
        XCTAssertEqual(try Geopoint.parse("19.4326 -99.1332 2240 5").description, "19.4326, -99.1332, 2240 m (±5 m)")
    }

    func testHaversineDistances() throws {
        let zocalo = try Geopoint.parse("19.4326 -99.1332"), bellasArtes = try Geopoint.parse("19.4352 -99.1412")
        XCTAssertEqual(zocalo.distance(to: bellasArtes), 889, accuracy: 5)
        XCTAssertEqual(zocalo.distance(to: zocalo), 0)
        XCTAssertEqual(bellasArtes.distance(to: zocalo), zocalo.distance(to: bellasArtes), accuracy: 1e-9)
        // A quarter of a meridian and half the equator, on the mean-radius sphere.
        XCTAssertEqual(try Geopoint.parse("0 0").distance(to: Geopoint.parse("90 0")), .pi / 2 * Geopoint.earthRadius, accuracy: 0.001)
        XCTAssertEqual(try Geopoint.parse("0 0").distance(to: Geopoint.parse("0 180")), .pi * Geopoint.earthRadius, accuracy: 0.001)
        XCTAssertEqual(try Geopoint.parse("0 179.9").distance(to: Geopoint.parse("0 -179.9")), 22_239, accuracy: 2, "across the antimeridian")
        XCTAssertEqual(try Geopoint.parse("90 0").distance(to: Geopoint.parse("90 120")), 0, accuracy: 1e-6, "one pole")
        XCTAssertFalse(try Geopoint.parse("45 45").distance(to: Geopoint.parse("-45 -135")).isNaN, "antipodes")
    }

    func testMovingAPointKeepsTheDistanceAndStaysOnTheGlobe() throws {
        let hydrant = try Geopoint.parse("19.4326 -99.1332 2240 5")
        for bearing in stride(from: 0.0, to: 360, by: 45) {
            for metres in [0.0, 1, 25, 500, 10_000] {
                let moved = hydrant.moved(metres: metres, bearing: bearing)
                XCTAssertEqual(moved.distance(to: hydrant), metres, accuracy: metres * 1e-9 + 1e-6, "\(metres) m at \(bearing)°")
                XCTAssertEqual(moved.altitude, 2240)
                XCTAssertEqual(moved.accuracy, 5)
            }
        }
        XCTAssertGreaterThan(hydrant.moved(metres: 100, bearing: 0).latitude, hydrant.latitude, "north")
        XCTAssertGreaterThan(hydrant.moved(metres: 100, bearing: 90).longitude, hydrant.longitude, "east")
        let across = try Geopoint.parse("0 179.9999").moved(metres: 1000, bearing: 90)
        XCTAssertLessThan(across.longitude, -179.99, "wrapped across the antimeridian")
        XCTAssertNoThrow(try Geopoint(latitude: across.latitude, longitude: across.longitude), "still a valid point")
        let pole = try Geopoint.parse("89.9999 0").moved(metres: 1000, bearing: 0)
        XCTAssertLessThanOrEqual(pole.latitude, 90)
        XCTAssertNoThrow(try Geopoint(latitude: pole.latitude, longitude: pole.longitude))
    }

    func testBoundingBox() throws {
        XCTAssertNil(GeoBoundingBox([Geopoint]()))
        let points = try ["19.4326 -99.1332", "19.4352 -99.1412", "19.42 -99.13 2200 3"].map(Geopoint.parse)
        let box = try XCTUnwrap(GeoBoundingBox(points))
        XCTAssertEqual([box.south, box.west, box.north, box.east], [19.42, -99.1412, 19.4352, -99.13])
        XCTAssertTrue(points.allSatisfy(box.contains))
        XCTAssertFalse(box.contains(try Geopoint.parse("19.5 -99.13")))
        XCTAssertEqual(box.center.latitude, (19.42 + 19.4352) / 2, accuracy: 1e-12)
        let one = try XCTUnwrap(GeoBoundingBox([try Geopoint.parse("1 2")]))
        XCTAssertEqual([one.south, one.west, one.north, one.east], [1, 2, 1, 2])
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
