import Foundation
import TestSupport
import XCTest

/// The shipped fire-hydrant inspection (Samples/templates/hydrant-inspection.json) as `make demo`
/// fills it: a real gpsd replaying the shipped Samples/gps/hydrant.nmea gives where the form is
/// started and the hydrant's position, zbarimg reads the shipped tag photo, the outlet photo is
/// the photo question's answer, and the form submits and exports.
final class HydrantSampleTests: XCTestCase {
    func testTheShippedHydrantInspectionIsFilledFromItsSampleFiles() throws {
        let log = Sandbox.repositoryRoot.appendingPathComponent("Samples/gps/hydrant.nmea")
        let fake = try GPSFake(log: log)
        addTeardownBlock { fake.stop() }
        let sandbox = try Sandbox(extraPlist: "<key>Location</key><dict><key>GPSD</key><string>\(fake.hostPort)</string></dict>")
        try sandbox.importSamples()
        let media = Sandbox.repositoryRoot.appendingPathComponent("Samples/media")

        let started = try sandbox.run(["new", "hydrant-inspection", "--name", "hydrant-12"])
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertTrue(started.stdout.contains("Started at 19.4326, -99.1332"), started.output)

        let tag = try sandbox.run(["answer", "hydrant-12", "asset-tag", "--from-image", media.appendingPathComponent("hydrant-tag.jpg").path])
        XCTAssertEqual(tag.status, 0, tag.output)
        let gps = try sandbox.run(["answer", "hydrant-12", "position", "--gps"])
        XCTAssertEqual(gps.status, 0, gps.output)
        let answers = #"{"last-service": "2025-03-14", "opened-at": "10:40", "flow": 4, "caps-ok": true, "pressure": 5.5}"#
        let typed = try sandbox.run(["answer", "hydrant-12", "--file", "-"], stdin: answers)
        XCTAssertEqual(typed.status, 0, typed.output)
        let photo = try sandbox.run(["answer", "hydrant-12", "outlet-photo", media.appendingPathComponent("hydrant-outlet.jpg").path])
        XCTAssertEqual(photo.status, 0, photo.output)

        let form = try sandbox.formJSON("hydrant-12")
        let answersJSON = try XCTUnwrap(form["answers"] as? [String: Any])
        XCTAssertEqual((answersJSON["asset-tag"] as? [String: Any])?["value"] as? String, "HYD-0427")
        XCTAssertEqual((answersJSON["asset-tag"] as? [String: Any])?["media"] as? [String], ["Qid1(1).jpg"])
        let position = try XCTUnwrap((answersJSON["position"] as? [String: Any])?["value"] as? [String: Double])
        XCTAssertEqual(try XCTUnwrap(position["latitude"]), 19.4326, accuracy: 1e-6)
        XCTAssertEqual((answersJSON["outlet-photo"] as? [String: Any])?["media"] as? [String], ["Qid6(1).jpg"])
        XCTAssertNil(answersJSON["safety"], "the note takes no answer")

        let submitted = try sandbox.run(["submit", "hydrant-12"])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let output = sandbox.root.appendingPathComponent("hydrants.geojson")
        let exported = try sandbox.run(["export", "hydrant-inspection", "--format", "geojson", "--output", output.path])
        XCTAssertEqual(exported.status, 0, exported.output)
        let geojson = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let features = try XCTUnwrap(geojson["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 1)
        let coordinates = try XCTUnwrap((features.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        XCTAssertEqual(try XCTUnwrap(coordinates.first), -99.1332, accuracy: 1e-6, "GeoJSON puts the longitude first")
        XCTAssertEqual(coordinates[1], 19.4326, accuracy: 1e-6)
    }

    /// `mi simulate --near` places simulated forms — where each was started and its location
    /// answers — within 3 km of the point given; a point off the globe is refused, creating nothing.
    func testSimulatedHydrantsLieNearThePointGiven() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let refused = try sandbox.run(["simulate", "hydrant-inspection", "--count", "3", "--seed", "5", "--near", "95 -99.1332"])
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(refused.stderr.contains("--near"), refused.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("sim-5-1").path), "nothing was created")

        let simulated = try sandbox.run(["simulate", "hydrant-inspection", "--count", "8", "--seed", "5", "--near", "19.4326 -99.1332 2240", "--submit"])
        XCTAssertEqual(simulated.status, 0, simulated.output)
        let export = sandbox.root.appendingPathComponent("sim.jsonl")
        let exported = try sandbox.run(["export", "hydrant-inspection", "--format", "jsonl", "--output", export.path])
        XCTAssertEqual(exported.status, 0, exported.output)
        let forms = try String(contentsOf: export, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(forms.count, 8)
        func metres(_ point: [String: Double]) throws -> Double {
            // An equirectangular distance is exact enough at 3 km.
            let latitude = try XCTUnwrap(point["latitude"]), longitude = try XCTUnwrap(point["longitude"])
            let dy = (latitude - 19.4326) * 111_195, dx = (longitude + 99.1332) * 111_195 * cos(19.4326 * .pi / 180)
            return (dx * dx + dy * dy).squareRoot()
        }
        var answered = 0
        for form in forms {
            let start = try XCTUnwrap(form["startLocation"] as? [String: Double], "a simulated form of a captureLocation template has a start location")
            XCTAssertLessThan(try metres(start), 3_050)
            if let position = ((form["answers"] as? [String: Any])?["position"] as? [String: Any])?["value"] as? [String: Double] {
                XCTAssertLessThan(try metres(position), 3_050)
                answered += 1
            }
        }
        XCTAssertGreaterThan(answered, 4, "most simulated forms answer the location question")
    }
}
