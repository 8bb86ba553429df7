import Foundation
import TestSupport
import XCTest

/// Groups and repeats in the office (issue 24 item 5): a form of `StationFixture`'s template — a group that is
/// not relevant, a counted repeat of simple questions and an open repeat with a photo and a
/// nested repeat, made with the real `mi` (answers by path: `pumps[2]/amps`, photos attached by
/// path: `mi attach FORM tanks[1]/tankphoto`) and uploaded to a
/// real mi-server. In chromium (Resources/mi_office_browser.py `--repeats`) the submission page
/// shows the group marked "not relevant", the counted repeat as a table, the open repeat as a
/// section per instance with the nested repeat inside and the instance's photo in its place; the
/// PDF the page links to, read with poppler's pdftotext, shows the same structure in order.
final class OfficeRepeatsTests: XCTestCase {
    static let hostile = "<img src=x onerror=alert(1)>"

    func testSubmissionPageAndPDFShowGroupsRepeatsAndRelevance() throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/pdftotext"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/setup.sh as root")
        }
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        try Data(StationFixture.json.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/station-check.json"))
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        _ = try sandbox.newForm("station-check", name: "station-1")
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        // Answers by path: `mi answer` with an answers file whose keys are paths (the counted
        // repeat's instances exist once npumps is answered; answering the instance one past the
        // last of the open repeat adds it), then one answer typed on the command line.
        let answers: [String: Any] = [
            "running": false, "npumps": 2,
            "pumps[1]/amps": 12, "pumps[1]/state": ["worn"], "pumps[1]/wear": "Seal face " + Self.hostile,
            "pumps[2]/amps": 9.5, "pumps[2]/state": ["ok"],
            "tanks[1]/level": 80, "tanks[1]/valves[1]/valve": "closed", "tanks[1]/valves[2]/valve": "half open",
            "tanks[2]/level": 35,
        ]
        let file = sandbox.root.appendingPathComponent("station-answers.json")
        try JSONSerialization.data(withJSONObject: answers, options: [.sortedKeys]).write(to: file)
        let answered = try sandbox.run(["answer", "station-1", "--file", file.path])
        XCTAssertEqual(answered.status, 0, answered.output)
        let typed = try sandbox.run(["answer", "station-1", "site", "North plant"])
        XCTAssertEqual(typed.status, 0, typed.output)
        for tank in ["tanks[1]/tankphoto", "tanks[2]/tankphoto"] {
            let attached = try sandbox.run(["attach", "station-1", tank, photo])
            XCTAssertEqual(attached.status, 0, "\(tank): \(attached.output)")
        }
        let submitted = try sandbox.run(["submit", "station-1"])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let form = try sandbox.formJSON("station-1", in: "CompletedMIs")
        let stored = try XCTUnwrap(form["answers"] as? [String: Any])
        let tankPhoto = try XCTUnwrap(((stored["tanks[1]/tankphoto"] as? [String: Any])?["media"] as? [String])?.first,
                                      "tank 1's photo is stored under its path: \(stored.keys.sorted())")
        let id = try XCTUnwrap(form["id"] as? String).lowercased()
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)

        let facts: [String: Any] = [
            "fionaPassword": TestDirectory.password(for: "fiona"), "id": id, "hostile": [Self.hostile],
            "group": "power", "notRelevantQuestion": "voltage",
            "table": "pumps", "columns": ["Current (A)", "Pump state", "Where is the wear?"],
            "rows": ["pumps[1]", "pumps[2]"], "rowLabels": ["Pump 1", "Pump 2"],
            "cells": ["pumps[1]/amps": "12", "pumps[2]/amps": "9.5", "pumps[1]/state": "worn", "pumps[2]/state": "ok"],
            "notRelevantCell": "pumps[2]/wear",
            "sections": "tanks", "instances": ["tanks[1]", "tanks[2]"],
            "nested": ["tanks[1]/valves": ["tanks[1]/valves[1]", "tanks[1]/valves[2]"], "tanks[2]/valves": [String]()],
            "instancePhoto": ["path": "tanks[1]/tankphoto", "name": tankPhoto],
            // The PDF in order: the group and its mark, the table's header and rows, each tank
            // with its photo's caption and its valves.
            "pdfOrder": ["Site name", "North plant", "Power supply", "not relevant", "Supply voltage (V)", "not relevant",
                         "How many pumps?", "Pump (2)", "Current (A)", "Pump 1", "12", "worn", "Pump 2", "9.5", "not relevant",
                         "Tank (2)", "Tank 1", "tanks[1]", "Tank level (%)", "80", "Photo of the tank", tankPhoto,
                         "Valve (2)", "Valve 1", "closed", "Valve 2", "half open",
                         "Tank 2", "tanks[2]", "35", "Valve (0)", "none", "Foreman comments"],
            "answered": "16 of 16 questions",
        ]
        let run = try OfficeBrowserTests.browse(sandbox, mode: ["--repeats"], facts: facts, screenshots: "repeats-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 6 steps passed"), "not every step ran and passed:\n\(run.stdout)")
        withExtendedLifetime(server) {}
    }
}
