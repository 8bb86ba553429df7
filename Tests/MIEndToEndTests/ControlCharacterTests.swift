import Foundation
import XCTest

/// Control characters never reach form.json through mi, and never reach the terminal from it.
final class ControlCharacterTests: XCTestCase {
    func testAnAnswerWithAnEscapeSequenceIsRefusedAndNothingIsSaved() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let file = sandbox.formFolder(name).appendingPathComponent("form.json")
        let before = try Data(contentsOf: file)

        let result = try sandbox.run(["answer", name, "location", "\u{1B}[2J"])
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("control character U+001B"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: file), before, "form.json is unchanged")

        let json = try sandbox.run(["answer", name, "location", "Hall\u{9B}2J", "--json"])
        XCTAssertEqual(json.status, 65, json.output)
        let error = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: [String: String]]
        XCTAssertEqual(error?["error"]?["code"], "control-character")
        XCTAssertEqual(try Data(contentsOf: file), before)
    }

    func testReviewOfAFormWrittenByAnotherToolPrintsControlsEscaped() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let answers = sandbox.root.appendingPathComponent("a.json")
        try Data(#"{"location": {"value": "Hall", "comment": "Noted"}}"#.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path]).status, 0)
        // Another tool writes escape sequences into the answer and the comment.
        let file = sandbox.formFolder(name).appendingPathComponent("form.json")
        var text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains(#""Hall""#) && text.contains(#""Noted""#), text)
        text = text.replacingOccurrences(of: #""Hall""#, with: #""\u001b[2JHall""#)
            .replacingOccurrences(of: #""Noted""#, with: #""\u009b31mNoted\u0007""#)
        try Data(text.utf8).write(to: file)

        let review = try sandbox.run(["review", name])
        XCTAssertEqual(review.status, 0, review.output)
        let controls = review.stdout.unicodeScalars.filter { $0.value == 0x1B || (0x7F...0x9F).contains($0.value) || $0.value == 0x07 }
        XCTAssertEqual(controls.count, 0, review.stdout.debugDescription)
        XCTAssertTrue(review.stdout.contains(#"\e[2JHall"#), review.stdout)
        XCTAssertTrue(review.stdout.contains(#"\u{9b}31mNoted\u{7}"#), review.stdout)

        // JSON output keeps the text exactly: JSON escapes it.
        let json = try sandbox.run(["review", name, "--json"])
        XCTAssertEqual(json.status, 0, json.output)
        XCTAssertFalse(json.stdout.unicodeScalars.contains { $0.value == 0x1B || (0x7F...0x9F).contains($0.value) }, json.stdout)
        XCTAssertTrue(json.stdout.contains(#"\u009b31mNoted"#), json.stdout)
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let location = (parsed?["questions"] as? [[String: Any]])?.first { $0["id"] as? String == "location" }
        XCTAssertEqual(location?["comment"] as? String, "\u{9b}31mNoted\u{7}", "the escape means the same text")
    }

    /// The probe of the issue: a template titled `ESC]0;…BEL ESC[2J` (dropped into the server's
    /// folder by hand, or imported) was printed raw by `mi templates` and `mi fill`'s header.
    /// Every template text `mi` prints is escaped: the listing, the import message, the fill
    /// header, its questions, options and table labels.
    func testTemplateTextsFromAServerOrAnImportArePrintedEscaped() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hostile = Data(#"""
            {"id": "hostile", "title": "Pump \u001b]0;owned\u0007\u001b[2J", "version": 1, "questions": [
              {"id": "grid", "type": "table", "text": "Grid\u001b[31m", "rows": ["r\u009b1"], "columns": ["c\u001b[5m"]},
              {"id": "pick", "type": "multipleChoice", "text": "Pick", "options": ["a\u0007", "b"]}]}
            """#.utf8)
        try hostile.write(to: folder.appendingPathComponent("hostile.json"))
        let server = try RunningServer(sandbox)
        func assertNoControls(_ result: RunResult, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
            let controls = result.output.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
            XCTAssertEqual(controls.count, 0, "\(what): \(result.output.debugDescription)", file: file, line: line)
        }

        let listed = try sandbox.run(["templates"])
        XCTAssertEqual(listed.status, 0, listed.output)
        assertNoControls(listed, "mi templates")
        XCTAssertTrue(listed.stdout.contains(#"Pump \e]0;owned\u{7}\e[2J"#), listed.stdout)
        withExtendedLifetime(server) {}

        let name = try sandbox.newForm("hostile", name: "h1")
        let fill = try sandbox.run(["fill", name], stdin: "")
        assertNoControls(fill, "mi fill")
        XCTAssertTrue(fill.stdout.contains(#"h1 — Pump \e]0;owned\u{7}\e[2J"#), fill.stdout)
        XCTAssertTrue(fill.stdout.contains(#"Grid\e[31m"#), fill.stdout)
        XCTAssertTrue(fill.stdout.contains(#"r\u{9b}1 · c\e[5m"#), fill.stdout)

        // The same file imported by hand: listed and announced escaped.
        let imported = try sandbox.run(["templates", "import", folder.appendingPathComponent("hostile.json").path])
        XCTAssertEqual(imported.status, 0, imported.output)
        assertNoControls(imported, "mi templates import")
        let offline = try sandbox.run(["templates", "--offline"])
        assertNoControls(offline, "mi templates --offline")
        XCTAssertTrue(offline.stdout.contains(#"\e[2J"#), offline.stdout)
    }
}
