import Foundation
import TestSupport
import XCTest

/// Options with names and labels through the real `mi`: typed by number, name or label, stored
/// as names, shown as labels by `mi review` and the PDF, exported as ODK Central does.
final class NamedChoicesTests: XCTestCase {
    static let template = #"""
        {"id": "valve-check", "title": "Valve check", "version": 1, "questions": [
          {"id": "leaks", "type": "multipleChoice", "text": "Where does it leak?", "Max-answers": 0,
           "options": [{"name": "none", "label": "No leak"}, {"name": "seal", "label": "Mechanical seal"},
                       {"name": "drain", "label": "Casing drain"}, "Stem"]},
          {"id": "state", "type": "multipleChoice", "text": "State", "options": [{"name": "ok", "label": "Working"}, {"name": "stuck", "label": "Stuck"}]}
        ]}
        """#

    func testNamesAreStoredLabelsShownAndTheCSVIsODKCentrals() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.template.utf8).write(to: folder.appendingPathComponent("valve-check.json"))
        let imported = try sandbox.run(["templates", "import", folder.path], as: "ana")
        XCTAssertEqual(imported.status, 0, imported.output)
        let name = try sandbox.newForm("valve-check", as: "ana", name: "valve-1")

        // A number, a name and a label on one line; a label alone.
        XCTAssertEqual(try sandbox.run(["answer", name, "leaks", "2,", "drain,", "Stem"]).status, 0)
        let bad = try sandbox.run(["answer", name, "state", "jammed"])
        XCTAssertEqual(bad.status, 65, bad.output)
        XCTAssertTrue(bad.stderr.contains("1. Working (ok), 2. Stuck (stuck)"), bad.stderr)
        let answered = try sandbox.run(["answer", name, "state", "stuck"])
        XCTAssertEqual(answered.status, 0, answered.output)

        let review = try sandbox.run(["review", name, "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any], review.output)
        let questions = try XCTUnwrap(object["questions"] as? [[String: Any]])
        XCTAssertEqual(questions[0]["value"] as? [String], ["seal", "drain", "Stem"], "answers store names")
        XCTAssertEqual(questions[1]["value"] as? [String], ["stuck"])
        let text = try sandbox.run(["review", name])
        XCTAssertTrue(text.stdout.contains("Mechanical seal, Casing drain, Stem"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Stuck"), text.stdout)

        let pdf = sandbox.root.appendingPathComponent("valve.pdf")
        XCTAssertEqual(try sandbox.run(["print", name, "--output", pdf.path]).status, 0)
        let printed = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-layout", "-enc", "UTF-8", pdf.path, "-"])
        XCTAssertTrue(printed.contains("☒ Mechanical seal"), printed)
        XCTAssertTrue(printed.contains("☒ Casing drain"), printed)
        XCTAssertTrue(printed.contains("☐ No leak"), printed)
        XCTAssertTrue(printed.contains("☒ Stuck"), printed)
        XCTAssertFalse(printed.contains("☒ seal") || printed.contains("☒ drain"), "the PDF shows labels, not names: \(printed)")

        XCTAssertEqual(try sandbox.run(["submit", name]).status, 0)
        let archive = sandbox.root.appendingPathComponent("valves.zip")
        let exported = try sandbox.run(["export", "valve-check", "--output", archive.path, "--no-media"], as: "fiona")
        XCTAssertEqual(exported.status, 0, exported.output)
        let csv = try XCTUnwrap(try ZipArchiveReader(Array(try Data(contentsOf: archive))).entry("valve-check.csv"))
        let lines = String(decoding: csv.data, as: UTF8.self).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(lines.count, 2)
        let header = lines[0].map { $0.replacingOccurrences(of: "\u{FEFF}", with: "") }
        XCTAssertEqual(Array(header[1...8]), ["leaks", "leaks/none", "leaks/seal", "leaks/drain", "leaks/Stem", "leaks-comment", "state", "state/ok"])
        let cells = Dictionary(uniqueKeysWithValues: zip(header, lines[1]))
        XCTAssertEqual(cells["leaks"], "seal drain Stem")
        XCTAssertEqual(cells["leaks/none"], "0")
        XCTAssertEqual(cells["leaks/seal"], "1")
        XCTAssertEqual(cells["leaks/Stem"], "1")
        XCTAssertEqual(cells["state"], "stuck")
        XCTAssertEqual(cells["state/stuck"], "1")
    }
}
