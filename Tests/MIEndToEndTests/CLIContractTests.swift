import Foundation
import XCTest

/// What scripts rely on: every command's `--json` is one object with lowercase ids, errors come
/// as one JSON document on stderr, exit statuses follow the error's class, and text fits the width.
final class CLIContractTests: XCTestCase {
    /// Parses a `--json` document and checks the contract: an object at the top, every UUID in
    /// lowercase, and no bearer token anywhere.
    @discardableResult
    func checkJSON(_ result: RunResult, _ command: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(result.status, 0, "\(command): \(result.output)", file: file, line: line)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let object = try XCTUnwrap(parsed as? [String: Any], "\(command) must print an object at the top level: \(result.stdout)",
                                   file: file, line: line)
        let uuid = try NSRegularExpression(pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        func visit(_ value: Any, path: String) {
            switch value {
            case let dictionary as [String: Any]:
                XCTAssertNil(dictionary["token"], "\(command) prints a token at \(path)", file: file, line: line)
                XCTAssertNil(dictionary["technician"], "\(command) says technician where the key is user, at \(path)", file: file, line: line)
                for (key, item) in dictionary { visit(item, path: path + "." + key) }
            case let array as [Any]:
                for (index, item) in array.enumerated() { visit(item, path: "\(path)[\(index)]") }
            case let string as String:
                let range = NSRange(string.startIndex..., in: string)
                for match in uuid.matches(in: string, range: range) {
                    let id = (string as NSString).substring(with: match.range)
                    XCTAssertEqual(id, id.lowercased(), "\(command) prints an uppercase id at \(path)", file: file, line: line)
                }
            default: break
            }
        }
        visit(object, path: "$")
        return object
    }

    func testEveryCommandsJSONIsAnObjectWithLowercaseIDs() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try sandbox.importSamples(as: "bob")
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        let name = try sandbox.newForm("extinguisher-check", name: "hall-a")
        let other = try sandbox.newForm("extinguisher-check", as: "bob", name: "bob-draft")
        let technician: [[String]] = [
            ["config", "check"], ["whoami"], ["templates", "--offline"],
            ["templates", "import", sandbox.repository.appendingPathComponent("Samples/templates/pump-inspection.json").path],
            ["list"], ["answer", name, "location", "Hall A"], ["answer", name, "seal", "1"],
            ["answer", name, "pressure-ok", "yes"], ["answer", name, "weight", "6.5", "--comment", "new tag"],
            ["attach", name, "location", photo], ["media", name], ["review", name, "--history"],
            ["print", name, "--output", sandbox.root.appendingPathComponent("hall-a.pdf").path],
            ["reminders"], ["submit", name], ["purge", "--dry-run"],
        ]
        for command in technician {
            try checkJSON(try sandbox.run(command + ["--json"]), command)
        }
        let spare = try sandbox.newForm("extinguisher-check", name: "spare")
        try checkJSON(try sandbox.run(["delete", spare, "--json"]), ["delete"])

        let foreman: [[String]] = [
            ["users"], ["queue"], ["review", "ana/\(name)"], ["comment", "ana/\(name)", "checked"],
            ["return", "ana/\(name)", "--note", "add the tag number"], ["assign", "bob/\(other)", "--to", "ana"],
        ]
        for command in foreman {
            try checkJSON(try sandbox.run(command + ["--json"], as: "fiona"), command)
        }
        let queue = try checkJSON(try sandbox.run(["queue", "--json"], as: "fiona"), ["queue"])
        let incomplete = try XCTUnwrap(queue["incomplete"] as? [[String: Any]])
        XCTAssertTrue(incomplete.contains { $0["user"] as? String == "ana" }, "\(incomplete)")

        let review = try checkJSON(try sandbox.run(["review", name, "--json"]), ["review"])
        let questions = try XCTUnwrap(review["questions"] as? [[String: Any]])
        let seal = try XCTUnwrap(questions.first { $0["id"] as? String == "seal" })
        XCTAssertEqual(seal["type"] as? String, "multipleChoice")
        XCTAssertEqual(seal["maxAnswers"] as? Int, 1)
        XCTAssertEqual(seal["options"] as? [String], ["Intact", "Broken", "Missing"])
        XCTAssertEqual(seal["typeDescription"] as? String, "multiple choice, one answer")
    }

    /// Each class of failure has its exit status, and with `--json` one JSON error on stderr.
    func testExitStatusesByClassAndJSONErrors() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check", name: "hall-b")
        let broken = sandbox.root.appendingPathComponent("Broken.plist")
        try Data("<plist><dict><key>ExpiryDays</key>".utf8).write(to: broken)
        let cases: [(arguments: [String], user: String?, environment: [String: String], status: Int32, code: String)] = [
            (["answer", name], "ana", [:], 64, "usage"),
            (["no-such-command"], "ana", [:], 64, "usage"),
            (["answer", name, "weight", "99"], "ana", [:], 65, "invalid-answer"),
            (["answer", name, "seal", "7"], "ana", [:], 65, "invalid-answer"),
            (["review", "no-such-form"], "ana", [:], 66, "form-not-found"),
            (["new", "no-such-template"], "ana", [:], 66, "template-not-found"),
            (["answer", name, "--file", sandbox.root.appendingPathComponent("missing.json").path], "ana", [:], 66, "answers-file-unreadable"),
            (["list"], nil, [:], 77, "not-logged-in"),
            (["queue"], "ana", [:], 77, "wrong-role"),
            (["list"], "ana", ["MI_CONFIG": broken.path], 78, "configuration"),
        ]
        for item in cases {
            let plain = try sandbox.run(item.arguments, as: item.user, environment: item.environment)
            XCTAssertEqual(plain.status, item.status, "\(item.arguments): \(plain.output)")
            XCTAssertTrue(plain.stdout.isEmpty, "\(item.arguments) printed on stdout: \(plain.stdout)")
            XCTAssertFalse(plain.stderr.contains("\u{1B}["), "no colour when stderr is not a terminal: \(plain.stderr)")

            let json = try sandbox.run(item.arguments + ["--json"], as: item.user, environment: item.environment)
            XCTAssertEqual(json.status, item.status, "\(item.arguments) --json: \(json.output)")
            let document = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any]
            let error = try XCTUnwrap(document?["error"] as? [String: Any], "\(item.arguments): \(json.stderr)")
            XCTAssertEqual(error["code"] as? String, item.code, "\(item.arguments): \(json.stderr)")
            XCTAssertFalse((error["message"] as? String ?? "").isEmpty, "\(item.arguments): \(json.stderr)")
        }
    }

    func testOutputFitsTheWidth() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try sandbox.importSamples(as: "bob")
        for (user, name) in [("ana", "a-form-with-a-rather-long-name-for-the-queue"), ("bob", "short")] {
            let form = try sandbox.newForm("pump-inspection", as: user, name: name)
            let answered = try sandbox.run(["answer", form, "notes", "--comment",
                                            "A long comment that goes on and on about the pump, the seal and the drain."], as: user)
            XCTAssertEqual(answered.status, 0, answered.output)
        }
        // On a terminal of that width (piped output is never wrapped: see OutputWidthTests).
        for width in [60, 80] {
            let queue = try sandbox.runOnTerminal(["queue"], as: "fiona", columns: UInt16(width))
            XCTAssertEqual(queue.status, 0, queue.lines.joined(separator: "\n"))
            XCTAssertTrue(queue.lines.contains { $0.contains("a-form-with-a-rather-long-name-for-the-queue") },
                          queue.lines.joined(separator: "\n"))
            for line in queue.lines {
                XCTAssertLessThanOrEqual(line.count, width, "\(width) columns: «\(line)»")
            }
            let review = try sandbox.runOnTerminal(["review", "a-form-with-a-rather-long-name-for-the-queue"], columns: UInt16(width))
            XCTAssertEqual(review.status, 0, review.lines.joined(separator: "\n"))
            XCTAssertTrue(review.lines.contains { $0.contains("pump") }, review.lines.joined(separator: "\n"))
            XCTAssertTrue(review.lines.contains { $0.contains("drain.") }, review.lines.joined(separator: "\n"))
            for line in review.lines {
                XCTAssertLessThanOrEqual(line.count, width, "\(width) columns: «\(line)»")
            }
        }
    }
}
