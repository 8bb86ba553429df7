import Foundation
import TestSupport
import XCTest

/// Locations through the real `mi`, a real gpsd (Debian's gpsfake replaying MIDevices' NMEA log),
/// the real mi-server and the office in chromium: where a form is started (`captureLocation`),
/// `geopoint` answers from gpsd or typed, and every place they are shown or exported.
final class LocationTests: XCTestCase {
    static let template = #"""
        {"id": "hydrant", "title": "Fire hydrant", "version": 1, "captureLocation": true, "questions": [
          {"id": "site", "type": "geopoint", "text": "Where is the hydrant?"},
          {"id": "outlet", "type": "geopoint", "text": "Outlet position", "minAccuracy": 0.5},
          {"id": "flow", "type": "numeric", "text": "Flow (L/min)"}
        ]}
        """#

    /// The position in MIDevices' fix.nmea: the Zócalo, Mexico City.
    static let logged = (latitude: 19.4326, longitude: -99.1332)

    /// gpsfake replaying fix.nmea on a free port, stopped when the test ends however it ends.
    func startGPSFake() throws -> GPSFake {
        let log = Sandbox.repositoryRoot.appendingPathComponent("Tests/MIDevicesTests/Resources/fix.nmea")
        let fake = try GPSFake(log: log)
        addTeardownBlock {
            fake.stop()
            XCTAssertTrue(fake.groupIsGone, "gpsfake and gpsd are stopped")
        }
        return fake
    }

    static func gpsdPlist(_ address: String) -> String {
        "<key>Location</key><dict><key>GPSD</key><string>\(address)</string></dict>"
    }

    func importTemplate(_ sandbox: Sandbox) throws {
        let folder = sandbox.root.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.template.utf8).write(to: folder.appendingPathComponent("hydrant.json"))
        let imported = try sandbox.run(["templates", "import", folder.path])
        XCTAssertEqual(imported.status, 0, imported.output)
    }

    func formBytes(_ sandbox: Sandbox, _ name: String) throws -> Data {
        try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"))
    }

    func point(_ json: [String: Any], _ question: String) -> [String: Double]? {
        ((json["answers"] as? [String: Any])?[question] as? [String: Any])?["value"] as? [String: Double]
    }

    func testARealGpsdGivesTheStartLocationAndTheAnswers() throws {
        let fake = try startGPSFake()
        let sandbox = try Sandbox(extraPlist: Self.gpsdPlist(fake.hostPort))
        try importTemplate(sandbox)

        // mi new of a captureLocation template records gpsd's position, and says where it came from.
        let started = try sandbox.run(["new", "hydrant", "--name", "h-1"])
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertTrue(started.stdout.contains("Started at 19.4326, -99.1332"), started.output)
        var stored = try sandbox.formJSON("h-1")
        let start = try XCTUnwrap(stored["startLocation"] as? [String: Double], "\(stored)")
        XCTAssertEqual(try XCTUnwrap(start["latitude"]), Self.logged.latitude, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(start["longitude"]), Self.logged.longitude, accuracy: 1e-6)
        let audit = try XCTUnwrap(stored["audit"] as? [[String: Any]])
        let located = try XCTUnwrap(audit.first { $0["action"] as? String == "located" }, "\(audit)")
        XCTAssertTrue((located["note"] as? String ?? "").contains("from gpsd at \(fake.hostPort)"), "\(located)")

        // mi answer --gps records the position as the answer.
        let answered = try sandbox.run(["answer", "h-1", "site", "--gps", "--gps-timeout", "20"])
        XCTAssertEqual(answered.status, 0, answered.output)
        stored = try sandbox.formJSON("h-1")
        let site = try XCTUnwrap(point(stored, "site"), "\(stored)")
        XCTAssertEqual(try XCTUnwrap(site["latitude"]), Self.logged.latitude, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(site["longitude"]), Self.logged.longitude, accuracy: 1e-6)

        // minAccuracy 0.5 m: gpsd's fix is worse, so the wait ends without an answer, exit 75.
        let before = try formBytes(sandbox, "h-1")
        let strict = try sandbox.run(["answer", "h-1", "outlet", "--gps", "--gps-timeout", "3"])
        XCTAssertEqual(strict.status, 75, strict.output)
        XCTAssertTrue(strict.stderr.contains("not the 0.5 m required"), strict.stderr)
        XCTAssertTrue(strict.stderr.contains("type the location instead: mi answer h-1 outlet LATITUDE LONGITUDE"), strict.stderr)
        XCTAssertEqual(try formBytes(sandbox, "h-1"), before, "form.json is unchanged")
        // --gps answers only a location question.
        let wrongType = try sandbox.run(["answer", "h-1", "flow", "--gps"])
        XCTAssertEqual(wrongType.status, 64, wrongType.output)
        XCTAssertTrue(wrongType.stderr.contains("--gps answers a location question; flow is a number question"), wrongType.stderr)

        // mi fill: Enter on an unanswered location question takes the fix; the next one is typed.
        XCTAssertEqual(try sandbox.run(["new", "hydrant", "--name", "h-2"]).status, 0)
        let filled = try sandbox.run(["fill", "h-2"], stdin: "\n19.4326 -99.1332 2240 0.3\n12\n\n")
        XCTAssertEqual(filled.status, 0, filled.output)
        XCTAssertTrue(filled.stdout.contains("GPS fix: 19.4326, -99.1332"), filled.stdout)
        let second = try sandbox.formJSON("h-2")
        XCTAssertEqual(try XCTUnwrap(point(second, "site")?["latitude"]), Self.logged.latitude, accuracy: 1e-6)
        XCTAssertEqual(point(second, "outlet"), ["latitude": 19.4326, "longitude": -99.1332, "altitude": 2240, "accuracy": 0.3])

        // On a terminal the wait shows the accuracy on stderr: gpsd's fix against minAccuracy.
        let (waiting, terminal) = try sandbox.startOnTerminal(["answer", "h-2", "outlet", "--gps", "--gps-timeout", "2"], plainLocale: false)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        waiting.waitUntilExit()
        XCTAssertEqual(waiting.terminationStatus, 75, terminal.output)
        XCTAssertTrue(terminal.output.contains("waiting for a GPS fix from \(fake.hostPort) ("), terminal.output)
        XCTAssertTrue(terminal.output.contains(", need ±0.5 m"), terminal.output)
        XCTAssertNotNil(terminal.output.range(of: #"best ±[0-9]+ m"#, options: .regularExpression), terminal.output)
        // mi fill on a terminal: Enter at the location question takes the fix.
        XCTAssertEqual(try sandbox.run(["new", "hydrant", "--name", "h-3"]).status, 0)
        let (filling, screen) = try sandbox.startOnTerminal(["fill", "h-3"], plainLocale: false)
        XCTAssertTrue(screen.waitFor("Location > "), screen.output)
        screen.type("\r")
        XCTAssertTrue(screen.waitFor("GPS fix: 19.4326, -99.1332"), screen.output)
        XCTAssertTrue(screen.waitFor("Location > ", occurrence: 2), screen.output)
        screen.type(":x\r")
        XCTAssertTrue(screen.waitForEnd(), screen.output)
        filling.waitUntilExit()
        XCTAssertEqual(filling.terminationStatus, 0, screen.output)
        XCTAssertEqual(try XCTUnwrap(point(try sandbox.formJSON("h-3"), "site")?["latitude"]), Self.logged.latitude, accuracy: 1e-6)

        // Review, review --json and the PDF show both.
        let review = try sandbox.run(["review", "h-2"])
        XCTAssertTrue(review.stdout.contains("Started at 19.4326, -99.1332"), review.stdout)
        XCTAssertTrue(review.stdout.contains("19.4326, -99.1332, 2240 m (±0.3 m)"), review.stdout)
        let json = try sandbox.run(["review", "h-2", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.output)
        XCTAssertEqual(try XCTUnwrap((object["startLocation"] as? [String: Double])?["latitude"]), Self.logged.latitude, accuracy: 1e-6)
        let questions = try XCTUnwrap(object["questions"] as? [[String: Any]])
        XCTAssertEqual(questions[1]["value"] as? [String: Double], ["latitude": 19.4326, "longitude": -99.1332, "altitude": 2240, "accuracy": 0.3])
        let pdf = sandbox.root.appendingPathComponent("h-2.pdf")
        let printed = try sandbox.run(["print", "h-2", "--output", pdf.path])
        XCTAssertEqual(printed.status, 0, printed.output)
        let text = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-layout", "-enc", "UTF-8", pdf.path, "-"])
        XCTAssertTrue(text.contains("Started at"), text)
        XCTAssertTrue(text.contains("19.4326° N, 99.1332° W (19.4326, -99.1332)"), text)
        XCTAssertTrue(text.contains("±0.3 m"), text)
    }

    func testWithoutGpsdTheMessageIsClearTypedEntryWorksAndBadValuesChangeNothing() throws {
        let port = try GPSFake.freePort()
        let sandbox = try Sandbox(extraPlist: Self.gpsdPlist("127.0.0.1:\(port)"))
        try importTemplate(sandbox)

        // The form is still started; the warning and the audit trail say why it has no location.
        let started = try sandbox.run(["new", "hydrant", "--name", "h-1"])
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertTrue(started.stderr.contains("no location recorded: nothing is listening on 127.0.0.1:\(port) — is gpsd running?"), started.stderr)
        XCTAssertNil(try sandbox.formJSON("h-1")["startLocation"])
        let history = try sandbox.run(["review", "h-1", "--history"])
        XCTAssertTrue(history.stdout.contains("Started at: no location recorded"), history.stdout)
        XCTAssertTrue(history.stdout.contains("location none recorded — nothing is listening on 127.0.0.1:\(port)"), history.stdout)

        let before = try formBytes(sandbox, "h-1")
        let gps = try sandbox.run(["answer", "h-1", "site", "--gps"])
        XCTAssertEqual(gps.status, 75, gps.output)
        XCTAssertEqual(gps.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 1, "one message: \(gps.stderr)")
        XCTAssertTrue(gps.stderr.contains("nothing is listening on 127.0.0.1:\(port)"), gps.stderr)
        XCTAssertTrue(gps.stderr.contains("type the location instead: mi answer h-1 site LATITUDE LONGITUDE"), gps.stderr)
        XCTAssertEqual(try formBytes(sandbox, "h-1"), before)
        let gpsJSON = try sandbox.run(["answer", "h-1", "site", "--gps", "--json"])
        XCTAssertTrue(gpsJSON.stderr.contains(#""code":"gpsd-not-listening""#) || gpsJSON.stderr.contains(#""code" : "gpsd-not-listening""#), gpsJSON.stderr)

        // Bad values are refused naming the question, form.json unchanged.
        for (arguments, said) in [
            (["site", "91", "-99.1"], "question site (1 of 3): the latitude 91 is outside −90 to 90"),
            (["site", "--", "-33.4", "-181"], "question site (1 of 3): the longitude -181 is outside −180 to 180"),
            (["outlet", "19.4", "-99.1", "2240", "3"], "question outlet (2 of 3): the accuracy is 3 m, worse than the 0.5 m required"),
            (["outlet", "19.4", "-99.1"], "question outlet (2 of 3): the accuracy of this location is unknown"),
            (["site", "19,4326", "-99,1332"], "uses commas for decimals"),
        ] {
            let refused = try sandbox.run(["answer", "h-1"] + arguments)
            XCTAssertEqual(refused.status, 65, "\(arguments): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains(said), "\(arguments): \(refused.stderr)")
            XCTAssertEqual(try formBytes(sandbox, "h-1"), before, "\(arguments) changed form.json")
        }

        // Typed entry still works.
        let typed = try sandbox.run(["answer", "h-1", "site", "19.4326", "-99.1332", "2240", "5"])
        XCTAssertEqual(typed.status, 0, typed.output)
        XCTAssertEqual(point(try sandbox.formJSON("h-1"), "site"), ["latitude": 19.4326, "longitude": -99.1332, "altitude": 2240, "accuracy": 5])

        // mi fill: Enter asks gpsd, which is not there: piped, fill stops with gpsd's message (75)
        // and nothing is saved; the same location typed is taken.
        XCTAssertEqual(try sandbox.run(["new", "hydrant", "--name", "h-3"]).status, 0)
        let fillBefore = try formBytes(sandbox, "h-3")
        let noFix = try sandbox.run(["fill", "h-3", "--gps-timeout", "2"], stdin: "\n")
        XCTAssertEqual(noFix.status, 75, noFix.output)
        XCTAssertTrue(noFix.stderr.contains("nothing is listening on 127.0.0.1:\(port)"), noFix.stderr)
        XCTAssertEqual(try formBytes(sandbox, "h-3"), fillBefore)
        let typedFill = try sandbox.run(["fill", "h-3"], stdin: "19.4326 -99.1332\n:x\n")
        XCTAssertEqual(typedFill.status, 0, typedFill.output)
        XCTAssertEqual(point(try sandbox.formJSON("h-3"), "site"), ["latitude": 19.4326, "longitude": -99.1332])

        // --location gives the start instead of gpsd; a bad one starts nothing.
        let formsBefore = sandbox.allFormFiles()
        let badStart = try sandbox.run(["new", "hydrant", "--location", "95 10"])
        XCTAssertEqual(badStart.status, 65, badStart.output)
        XCTAssertTrue(badStart.stderr.contains("--location: the latitude 95 is outside −90 to 90"), badStart.stderr)
        XCTAssertEqual(sandbox.allFormFiles(), formsBefore, "no form was started")
        let typedStart = try sandbox.run(["new", "hydrant", "--name", "h-2", "--location", "-33.4489 -70.6693"])
        XCTAssertEqual(typedStart.status, 0, typedStart.output)
        XCTAssertFalse(typedStart.stderr.contains("gpsd"), "gpsd is not asked: \(typedStart.stderr)")
        XCTAssertEqual(try sandbox.formJSON("h-2")["startLocation"] as? [String: Double], ["latitude": -33.4489, "longitude": -70.6693])

        // A template that does not record where forms are started takes no --location.
        try sandbox.importSamples()
        let notRecorded = try sandbox.run(["new", "extinguisher-check", "--location", "19.4 -99.1"])
        XCTAssertEqual(notRecorded.status, 64, notRecorded.output)
        XCTAssertTrue(notRecorded.stderr.contains("template extinguisher-check does not record where its forms are started"), notRecorded.stderr)
        XCTAssertEqual(sandbox.allFormFiles().count, formsBefore.count + 1, "only h-2 was started")

        // Location.GPSD is checked by the configuration loader.
        let text = try String(contentsOf: sandbox.config, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:\(port)", with: "gps.local:99999")
        try Data(text.utf8).write(to: sandbox.config)
        let check = try sandbox.run(["config", "check"], as: nil)
        XCTAssertEqual(check.status, 78, check.output)
        XCTAssertTrue(check.output.contains("Location.GPSD"), check.output)
        XCTAssertTrue(check.output.contains(#"the port "99999" is not a number from 1 to 65535"#), check.output)
    }

    func testSimulatedPointsLieNearOneAnotherInStatisticsAndGeoJSON() throws {
        let sandbox = try Sandbox(extraPlist: Self.gpsdPlist("127.0.0.1:\(try GPSFake.freePort())"))
        try importTemplate(sandbox)
        let made = try sandbox.run(["simulate", "hydrant", "--count", "25", "--seed", "7", "--submit"])
        XCTAssertEqual(made.status, 0, made.output)
        let stats = try sandbox.run(["stats", "hydrant", "--json"])
        XCTAssertEqual(stats.status, 0, stats.output)
        let figures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let site = try XCTUnwrap((figures["questions"] as? [[String: Any]])?.first)
        let locations = try XCTUnwrap(site["locations"] as? [String: Any], "\(site)")
        let count = try XCTUnwrap(locations["count"] as? Int)
        XCTAssertEqual(count, site["answered"] as? Int)
        XCTAssertGreaterThan(count, 15)
        XCTAssertEqual((locations["points"] as? [Any])?.count, count)
        let box = try XCTUnwrap(locations["boundingBox"] as? [String: Double])
        let north = try XCTUnwrap(box["north"]), south = try XCTUnwrap(box["south"])
        let west = try XCTUnwrap(box["west"]), east = try XCTUnwrap(box["east"])
        XCTAssertLessThan((north - south) * 111_195, 6_100, "within 3 km of one base point")
        XCTAssertLessThan((east - west) * 111_195 * cos((north + south) / 2 * .pi / 180), 6_100)
        XCTAssertGreaterThan(north - south, 0)
        // mi stats draws the points.
        let text = try sandbox.run(["stats", "hydrant"])
        XCTAssertTrue(text.stdout.contains("points \(count) · north "), text.stdout)
        XCTAssertTrue(text.stdout.contains("*"), text.stdout)

        // GeoJSON: a simulated form has no start location, so it stands at its site answer.
        let output = sandbox.root.appendingPathComponent("hydrants.geojson")
        let exported = try sandbox.run(["export", "hydrant", "--format", "geojson", "--output", output.path])
        XCTAssertEqual(exported.status, 0, exported.output)
        let collection = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let features = try XCTUnwrap(collection["features"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(features.count, count)
        for feature in features {
            let coordinates = try XCTUnwrap((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            XCTAssertTrue((west...east).contains(coordinates[0]) || (feature["properties"] as? [String: Any])?["location"] as? String != "site",
                          "longitude first: \(coordinates)")
        }
        // The same seed repeats the same points.
        let again = try Sandbox(extraPlist: Self.gpsdPlist("127.0.0.1:\(try GPSFake.freePort())"))
        try importTemplate(again)
        XCTAssertEqual(try again.run(["simulate", "hydrant", "--count", "25", "--seed", "7", "--submit"]).status, 0)
        let repeated = try again.run(["stats", "hydrant", "--json"])
        let other = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(repeated.stdout.utf8)) as? [String: Any])
        let otherSite = try XCTUnwrap((other["questions"] as? [[String: Any]])?.first)
        XCTAssertEqual((otherSite["locations"] as? [String: Any])?["boundingBox"] as? [String: Double], box)
    }

    func testLocationsThroughTheServerTheOfficeAndEveryExport() throws {
        let port = try GPSFake.freePort()
        let sandbox = try Sandbox(extraPlist: Self.gpsdPlist("127.0.0.1:\(port)"))
        try ServerTests.prepare(sandbox)
        try Data(Self.template.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/hydrant.json"))
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)

        func complete(_ name: String, location: String?, answers: String) throws {
            var arguments = ["new", "hydrant", "--name", name]
            if let location { arguments += ["--location", location] }
            let started = try sandbox.run(arguments)
            XCTAssertEqual(started.status, 0, started.output)
            let file = sandbox.root.appendingPathComponent("answers-\(name).json")
            try Data(answers.utf8).write(to: file)
            let answered = try sandbox.run(["answer", name, "--file", file.path])
            XCTAssertEqual(answered.status, 0, answered.output)
            let submitted = try sandbox.run(["submit", name])
            XCTAssertEqual(submitted.status, 0, submitted.output)
        }
        try complete("h-gps", location: "19.4326 -99.1332 2240 4", answers: #"""
            {"site": "19.4326 -99.1332 2232 3", "outlet": {"value": {"latitude": 19.4327, "longitude": -99.1331, "accuracy": 0.4}}, "flow": 900}
            """#)
        try complete("h-santiago", location: "-33.4489 -70.6693", answers: #"""
            {"site": "-33.4489 -70.6693 570 8", "outlet": {"value": {"latitude": -33.449, "longitude": -70.6694, "accuracy": 0.2}}, "flow": 750}
            """#)
        try complete("h-none", location: nil, answers: #"""
            {"site": {"comment": "buried under snow"}, "outlet": {"comment": "not reachable"}, "flow": 0}
            """#)
        let id = try XCTUnwrap(try sandbox.formJSON("h-gps", in: "CompletedMIs")["id"] as? String).lowercased()

        // The exports of the local store, as the foreman makes them.
        let archive = sandbox.root.appendingPathComponent("hydrants.zip")
        XCTAssertEqual(try sandbox.run(["export", "hydrant", "--output", archive.path, "--no-media"], as: "fiona").status, 0)
        let csv = try XCTUnwrap(try ZipArchiveReader(Array(try Data(contentsOf: archive))).entry("hydrant.csv"))
        let lines = String(decoding: csv.data, as: UTF8.self).split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines[0].map { $0.replacingOccurrences(of: "\u{FEFF}", with: "") }
        XCTAssertEqual(Array(header[0...9]), ["SubmissionDate", "StartLocation-Latitude", "StartLocation-Longitude", "StartLocation-Altitude",
                                              "StartLocation-Accuracy", "site-Latitude", "site-Longitude", "site-Altitude", "site-Accuracy", "site-comment"])
        let rows = lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        let gpsRow = try XCTUnwrap(rows.first { $0["KEY"] == id })
        XCTAssertEqual([gpsRow["site-Latitude"], gpsRow["site-Longitude"], gpsRow["site-Altitude"], gpsRow["site-Accuracy"]],
                       ["19.4326", "-99.1332", "2232", "3"])
        XCTAssertEqual(gpsRow["StartLocation-Altitude"], "2240")
        XCTAssertEqual(gpsRow["outlet-Accuracy"], "0.4")
        let noneRow = try XCTUnwrap(rows.first { $0["site-comment"] == "buried under snow" })
        XCTAssertEqual([noneRow["StartLocation-Latitude"], noneRow["site-Latitude"]], ["", ""])

        let jsonl = sandbox.root.appendingPathComponent("hydrants.jsonl")
        XCTAssertEqual(try sandbox.run(["export", "hydrant", "--format", "jsonl", "--output", jsonl.path], as: "fiona").status, 0)
        let forms = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let gpsForm = try XCTUnwrap(forms.first { ($0["id"] as? String)?.lowercased() == id })
        XCTAssertEqual(point(gpsForm, "site"), ["latitude": 19.4326, "longitude": -99.1332, "altitude": 2232, "accuracy": 3])
        XCTAssertEqual(gpsForm["startLocation"] as? [String: Double], ["latitude": 19.4326, "longitude": -99.1332, "altitude": 2240, "accuracy": 4])

        let geojson = sandbox.root.appendingPathComponent("hydrants.geojson")
        let exported = try sandbox.run(["export", "hydrant", "--format", "geojson", "--output", geojson.path], as: "fiona")
        XCTAssertEqual(exported.status, 0, exported.output)
        XCTAssertTrue(exported.stdout.contains("Exported 2 forms"), exported.stdout)
        XCTAssertTrue(exported.stdout.contains("left out 1 form without a location"), exported.stdout)
        let collection = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: geojson)) as? [String: Any])
        XCTAssertEqual(collection["type"] as? String, "FeatureCollection")
        let features = try XCTUnwrap(collection["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 2)
        let feature = try XCTUnwrap(features.first { $0["id"] as? String == id })
        XCTAssertEqual((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double], [-99.1332, 19.4326, 2240], "[longitude, latitude, altitude]")
        let properties = try XCTUnwrap(feature["properties"] as? [String: Any])
        XCTAssertEqual(properties["location"] as? String, "start")
        XCTAssertEqual(properties["flow"] as? Double, 900)
        XCTAssertEqual(properties["site"] as? [String: Double], ["latitude": 19.4326, "longitude": -99.1332, "altitude": 2232, "accuracy": 3])

        let stats = try sandbox.run(["stats", "hydrant", "--json"], as: "fiona")
        let figures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], stats.output)
        let site = try XCTUnwrap((figures["questions"] as? [[String: Any]])?.first)
        XCTAssertEqual((site["locations"] as? [String: Any])?["count"] as? Int, 2)
        XCTAssertEqual((site["locations"] as? [String: Any])?["boundingBox"] as? [String: Double],
                       ["north": 19.4326, "south": -33.4489, "west": -99.1332, "east": -70.6693])

        // Uploaded through the real mi-server, then seen in the office.
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertEqual(sandbox.allFormFiles(), [], upload.output)
        let facts: [String: Any] = [
            "fionaPassword": TestDirectory.password(for: "fiona"), "locationId": id, "locationForm": "h-gps",
            "startLatitude": "19.4326", "startLongitude": "-99.1332", "locationQuestion": "site",
            "answerLatitude": "19.4326", "answerLongitude": "-99.1332", "answerAccuracy": "3",
            "locationTemplate": "hydrant", "pointCount": 2, "north": 19.4326, "south": -33.4489,
            "featureCount": 2, "searchWord": "19.4326",
        ]
        let run = try OfficeBrowserTests.browse(sandbox, mode: ["--locations"], facts: facts, screenshots: "locations-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 5 steps passed"), "not every step ran and passed:\n\(run.stdout.suffix(600))")
        withExtendedLifetime(server) {}
    }
}
