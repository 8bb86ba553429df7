import Foundation
import XCTest

/// Exit statuses and small rules through the real `mi`: a missing file to attach is 66 "no
/// such file", a value may start with a dash after `--`, `mi export` keeps an existing file
/// unless --force.
final class SmallRulesTests: XCTestCase {
    func testAttachingAMissingFileIs66NoSuchFileAndAttachesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check", name: "post-9")
        let formFile = sandbox.formFolder(name).appendingPathComponent("form.json")
        let before = try Data(contentsOf: formFile)
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        let missing = sandbox.root.appendingPathComponent("no-such-photo.jpg").path

        let refused = try sandbox.run(["attach", name, "seal", photo, missing])
        XCTAssertEqual(refused.status, 66, refused.output)
        XCTAssertTrue(refused.stderr.contains("no such file: \(missing) — nothing was attached"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("permissions"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: formFile), before, "the existing photo before it was not attached either")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder(name).path), ["form.json"])

        let json = try sandbox.run(["attach", name, "seal", missing, "--json"])
        XCTAssertEqual(json.status, 66, json.output)
        let error = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any])?["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "no-such-file")
    }

    func testAValueStartingWithADashIsGivenAfterTheTerminator() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check", name: "post-10")
        let text = try sandbox.run(["answer", name, "location", "--", "-3"])
        XCTAssertEqual(text.status, 0, text.output)
        let answers = try XCTUnwrap(try sandbox.formJSON(name)["answers"] as? [String: [String: Any]])
        XCTAssertEqual(answers["location"]?["value"] as? String, "-3", "the value without the terminator")
        // A number is read as one number, and judged by the question's rules.
        let number = try sandbox.run(["answer", name, "weight", "--", "-3"])
        XCTAssertEqual(number.status, 65, number.output)
        XCTAssertTrue(number.stderr.contains("-3 is below the minimum 0.5"), number.stderr)
    }

    func testExportKeepsAnExistingFileUnlessForced() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        XCTAssertEqual(try sandbox.run(["simulate", "extinguisher-check", "--count", "2", "--seed", "4", "--submit"]).status, 0)
        let output = sandbox.root.appendingPathComponent("export.zip")
        try Data("keep me".utf8).write(to: output)

        let refused = try sandbox.run(["export", "extinguisher-check", "--output", output.path])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("\(output.path) already exists — nothing was written; replace it with --force"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: output), Data("keep me".utf8))

        let forced = try sandbox.run(["export", "extinguisher-check", "--output", output.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.output)
        XCTAssertEqual(try Data(contentsOf: output).prefix(2), Data("PK".utf8), "replaced by the zip")

        let fresh = sandbox.root.appendingPathComponent("fresh.jsonl")
        let created = try sandbox.run(["export", "extinguisher-check", "--output", fresh.path, "--format", "jsonl"])
        XCTAssertEqual(created.status, 0, created.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh.path))
    }
}
