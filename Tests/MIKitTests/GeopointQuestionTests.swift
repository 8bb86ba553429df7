import Foundation
import MIKit
import TestSupport
import XCTest

/// `geopoint` in its one file: template keys, typed and JSON answers, `minAccuracy`, the stored
/// form (old forms read the same), CSV columns, statistics, the GeoJSON feature, simulation.
final class GeopointQuestionTests: XCTestCase {
    static let templateJSON = #"""
        {"id": "hydrant", "title": "Hydrant", "version": 1, "captureLocation": true, "questions": [
          {"id": "site", "type": "geopoint", "text": "Where is it?"},
          {"id": "outlet", "type": "geopoint", "text": "Outlet", "minAccuracy": 10},
          {"id": "note", "type": "shortAnswer", "text": "Note"}
        ]}
        """#

    func template() throws -> Template { try TemplateCoding().decode(Data(Self.templateJSON.utf8), source: "hydrant.json") }

    func rules(_ template: Template, _ index: Int) -> AnswerRules {
        AnswerRules(question: template.questions[index], position: index + 1, count: template.questions.count)
    }

    func testTemplateKeysDecodeEncodeAndBadValuesNameTheKey() throws {
        let template = try template()
        XCTAssertTrue(template.captureLocation)
        XCTAssertEqual(template.questions[0].kind, .geopoint())
        XCTAssertEqual(template.questions[1].kind, .geopoint(minAccuracy: 10))
        XCTAssertEqual(template.questions[1].typeDescription, "location accurate to 10 m")
        XCTAssertEqual(template.questions[0].type.positionFix, PositionFix(accuracy: nil), "any fix will do")
        XCTAssertEqual(template.questions[1].type.positionFix, PositionFix(accuracy: 10), "a fix within minAccuracy")
        XCTAssertNil(template.questions[2].type.positionFix, "a short answer takes no position")
        let coding = TemplateCoding()
        XCTAssertEqual(try coding.decode(coding.encode(template), source: "again"), template)
        for (value, said) in [(#""ten""#, "expected a number of metres, found a string"), ("0", "0 is not a distance"), ("-3", "-3 is not a distance")] {
            let bad = Self.templateJSON.replacingOccurrences(of: #""minAccuracy": 10"#, with: #""minAccuracy": \#(value)"#)
            XCTAssertThrowsError(try coding.decode(Data(bad.utf8), source: "hydrant.json"), value) { error in
                XCTAssertTrue(error.localizedDescription.contains(#"question outlet, field "minAccuracy": \#(said)"#), error.localizedDescription)
            }
        }
        let badCapture = Self.templateJSON.replacingOccurrences(of: #""captureLocation": true"#, with: #""captureLocation": "yes""#)
        XCTAssertThrowsError(try coding.decode(Data(badCapture.utf8), source: "hydrant.json")) { error in
            XCTAssertTrue(error.localizedDescription.contains(#"field "captureLocation": expected true or false, found a string"#), error.localizedDescription)
        }
        // Renamed through Config.plist's TemplateKeys like any key.
        let renamed = TemplateCoding(keys: TemplateKeys(names: [.minAccuracy: "precision", .geopoint: "location"]))
        let json = Self.templateJSON.replacingOccurrences(of: "minAccuracy", with: "precision").replacingOccurrences(of: "geopoint", with: "location")
        XCTAssertEqual(try renamed.decode(Data(json.utf8), source: "r.json").questions[1].kind, .geopoint(minAccuracy: 10))
    }

    func testTypedAndJSONAnswersAndTheirRefusalsNameTheQuestion() throws {
        let template = try template()
        let site = rules(template, 0)
        let point = try Geopoint(latitude: 19.4326, longitude: -99.1332, altitude: 2240, accuracy: 5)
        XCTAssertEqual(try site.value(fromLine: "19.4326 -99.1332 2240 5"), .location(point))
        XCTAssertEqual(try site.value(fromWords: ["19.4326,", "-99.1332"]), .location(try Geopoint(latitude: 19.4326, longitude: -99.1332)))
        XCTAssertEqual(try site.value(fromJSON: point.json), .location(point))
        XCTAssertEqual(try site.value(fromJSON: .string("19.4326 -99.1332 2240 5")), .location(point))
        func refused(_ rules: AnswerRules, _ line: String, _ said: String, file: StaticString = #filePath, line number: UInt = #line) {
            XCTAssertThrowsError(try rules.value(fromLine: line), file: file, line: number) { error in
                let message = error.localizedDescription
                XCTAssertTrue(message.hasPrefix("question \(rules.label): "), message, file: file, line: number)
                XCTAssertTrue(message.contains(said), message, file: file, line: number)
                XCTAssertEqual((error as? AnswerError)?.failureClass, .badData, file: file, line: number)
            }
        }
        refused(site, "91 10", "the latitude 91 is outside −90 to 90")
        refused(site, "-90.5 10", "the latitude -90.5 is outside −90 to 90")
        refused(site, "10 180.01", "the longitude 180.01 is outside −180 to 180")
        refused(site, "19,4326 -99,1332", "uses commas for decimals")
        refused(site, "here", "a location is 2 to 4 numbers, got 1")
        XCTAssertThrowsError(try site.value(fromJSON: .object(["latitude": .number(10)]))) { error in
            XCTAssertTrue(error.localizedDescription.contains("question site (1 of 3): a location needs longitude"), error.localizedDescription)
        }
        XCTAssertThrowsError(try site.value(fromJSON: .bool(true)))

        let outlet = rules(template, 1)
        XCTAssertEqual(try outlet.value(fromLine: "19.4326 -99.1332 ? 9.5"),
                       .location(try Geopoint(latitude: 19.4326, longitude: -99.1332, accuracy: 9.5)))
        refused(outlet, "19.4326 -99.1332 2240 12", "the accuracy is 12 m, worse than the 10 m required")
        refused(outlet, "19.4326 -99.1332", "the accuracy of this location is unknown and must be 10 m or better")
    }

    func testStoredAsAnObjectOldFormsReadTheSameAndTheFastReaderAgrees() throws {
        let template = try template()
        var form = Form(id: FormID(), name: "h-1", user: "ana", template: template, createdAt: TestClock.start)
        let point = try Geopoint(latitude: 19.4326, longitude: -99.1332, altitude: 2240, accuracy: 5)
        form.answers["site"] = Answer(value: .location(point))
        form.answers["note"] = Answer(value: .text("ok"))
        form.startLocation = try Geopoint(latitude: 19.43, longitude: -99.13)
        let data = try FormFile.encode(form)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains(#""site":{"media":[],"value":{"accuracy":5,"altitude":2240,"latitude":19.4326,"longitude":-99.1332}}"#), text)
        XCTAssertTrue(text.contains(#""startLocation":{"latitude":19.43,"longitude":-99.13}"#), text)
        XCTAssertEqual(try FormFile.decode(data), form)
        var reader = FormReader()
        XCTAssertEqual(try reader.decode(data), form)

        // The existing values keep their bytes, and a form without a location has no key for it.
        var plain = Form(id: FormID(), name: "p", user: "ana", template: try TemplateFixture.sampleTemplate(), createdAt: TestClock.start)
        plain.answers["q"] = Answer(value: .choices(["a"]), comment: "c")
        plain.answers["n"] = Answer(value: .number(3))
        plain.answers["t"] = Answer(value: .cells([["1", nil]]))
        let plainText = String(decoding: try FormFile.encode(plain), as: UTF8.self)
        XCTAssertFalse(plainText.contains("startLocation"))
        XCTAssertTrue(plainText.contains(#""n":{"media":[],"value":3}"#), plainText)
        XCTAssertTrue(plainText.contains(#""t":{"media":[],"value":[["1",null]]}"#), plainText)
        XCTAssertEqual(try reader.decode(try FormFile.encode(plain)), plain)

        // An object that is not a point is refused by both readers with the same message.
        let broken = text.replacingOccurrences(of: #""latitude":19.4326"#, with: #""latitude":"north""#)
        XCTAssertThrowsError(try FormFile.decode(Data(broken.utf8))) { error in
            XCTAssertTrue("\(error)".contains("latitude must be a number"), "\(error)")
        }
        XCTAssertThrowsError(try reader.decode(Data(broken.utf8)))
    }

    func testCSVColumnsAreODKCentralsAndTheStartLocationComesFirst() throws {
        let template = try template()
        let layout = CSVLayout(template: template)
        XCTAssertEqual(Array(layout.header.prefix(15)), [
            "SubmissionDate", "StartLocation-Latitude", "StartLocation-Longitude", "StartLocation-Altitude", "StartLocation-Accuracy",
            "site-Latitude", "site-Longitude", "site-Altitude", "site-Accuracy", "site-comment",
            "outlet-Latitude", "outlet-Longitude", "outlet-Altitude", "outlet-Accuracy", "outlet-comment",
        ])
        var form = Form(id: FormID(), name: "h-1", user: "ana", template: template, createdAt: TestClock.start)
        form.answers["site"] = Answer(value: .location(try Geopoint(latitude: -33.45, longitude: -70.66, accuracy: 4)))
        let row = layout.row(for: form, attachmentsPresent: 0)
        XCTAssertEqual(Array(row[1...9]), ["", "", "", "", "-33.45", "-70.66", "", "4", ""])
        XCTAssertEqual(GeopointQuestion().searchText(.location(try Geopoint(latitude: -33.45, longitude: -70.66))), "-33.45 -70.66")
        XCTAssertEqual(GeopointQuestion().presentation(of: .location(try Geopoint(latitude: 1, longitude: 2))),
                       .location(try Geopoint(latitude: 1, longitude: 2)))
        XCTAssertEqual(GeopointQuestion().presentation(of: .text("old")), .text("old"))
    }

    func testStatisticsCountBoxAndListThePoints() throws {
        let template = try template()
        var builder = try StatisticsBuilder(template: template)
        let points = [(19.40, -99.20), (19.45, -99.10), (19.42, -99.15)]
        for (index, (latitude, longitude)) in points.enumerated() {
            var form = Form(id: FormID(), name: "h-\(index)", user: "ana", template: template, createdAt: TestClock.start)
            form.status = .completed
            form.submittedAt = TestClock.start
            form.answers["site"] = Answer(value: .location(try Geopoint(latitude: latitude, longitude: longitude)))
            builder.add(form)
        }
        let site = try XCTUnwrap(builder.result().questions.first)
        XCTAssertEqual(site.answered, 3)
        let locations = try XCTUnwrap(site.locations)
        XCTAssertEqual(locations.count, 3)
        XCTAssertEqual(locations.boundingBox, LocationBox(try XCTUnwrap(GeoBoundingBox(points.map { try Geopoint(latitude: $0.0, longitude: $0.1) }))))
        XCTAssertEqual(locations.boundingBox?.north, 19.45)
        XCTAssertEqual(locations.boundingBox?.west, -99.20)
        XCTAssertEqual(locations.points.map(\.latitude), [19.40, 19.45, 19.42])
        XCTAssertEqual(locations.pointsOmitted, 0)
        let plot = LocationPlot(locations)
        XCTAssertEqual(plot.positions.count, 3)
        XCTAssertTrue(plot.positions.allSatisfy { (0...1).contains($0.x) && (0...1).contains($0.y) })
        XCTAssertLessThan(plot.positions[1].y, plot.positions[0].y, "north is up")
        XCTAssertGreaterThan(plot.positions[1].x, plot.positions[0].x, "east is right")
        XCTAssertEqual(plot.characters(rows: 5).count, 5)
        XCTAssertEqual(plot.characters(rows: 5).joined().filter { $0 == "•" }.count, 3)
    }

    func testGeoJSONFeatureIsLongitudeFirstAtTheStartOrTheFirstAnswer() throws {
        let template = try template()
        var form = Form(id: FormID(), name: "h-1", user: "ana", template: template, createdAt: TestClock.start)
        form.answers["outlet"] = Answer(value: .location(try Geopoint(latitude: 19.5, longitude: -99.5, altitude: 2200, accuracy: 3)))
        form.answers["note"] = Answer(value: .text("ok"), comment: "flow good")
        let feature = try XCTUnwrap(GeoJSON.feature(for: form, template: template))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(feature)) as? [String: Any])
        let geometry = try XCTUnwrap(object["geometry"] as? [String: Any])
        XCTAssertEqual(geometry["coordinates"] as? [Double], [-99.5, 19.5, 2200])
        let properties = try XCTUnwrap(object["properties"] as? [String: Any])
        XCTAssertEqual(properties["location"] as? String, "outlet")
        XCTAssertEqual(properties["accuracy"] as? Double, 3)
        XCTAssertEqual(properties["note"] as? String, "ok")
        XCTAssertEqual(properties["note-comment"] as? String, "flow good")
        XCTAssertTrue(properties["site"] is NSNull)
        form.startLocation = try Geopoint(latitude: 10, longitude: 20)
        XCTAssertEqual(GeoJSON.place(of: form)?.source, "start")
        form.startLocation = nil
        form.answers["outlet"] = nil
        XCTAssertNil(GeoJSON.feature(for: form, template: template), "a form without a location has no feature")
    }

    func testSimulatedPointsLieNearOneAnotherAndRepeatWithTheSeed() throws {
        let question = GeopointQuestion(minAccuracy: 5)
        var generator = SeededGenerator(seed: 42)
        let base = try XCTUnwrap(Geopoint.simulationBase(seed: 42))
        var points: [Geopoint] = []
        for _ in 0..<50 { points.append(try Geopoint(json: try XCTUnwrap(question.simulatedValue(&generator)))) }
        XCTAssertTrue(points.allSatisfy { $0.distance(to: base) <= 3_010 }, "within 3 km of the base")
        XCTAssertTrue(points.allSatisfy { ($0.accuracy ?? 99) <= 5 }, "within minAccuracy")
        var again = SeededGenerator(seed: 42)
        XCTAssertEqual(try Geopoint(json: try XCTUnwrap(question.simulatedValue(&again))), points[0])
        XCTAssertNotEqual(Geopoint.simulationBase(seed: 43), base, "another seed, another place")
    }
}
