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
}
