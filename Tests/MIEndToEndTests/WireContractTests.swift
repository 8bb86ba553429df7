import Foundation
import XCTest

/// What scripts and administrators meet at the edges of the HTTP contract: `mi upload --json`,
/// the directory's password file, and mi-server's command line.
extension ServerTests {
    func testUploadJSONIsOneObjectWithEveryFormAndTheCounts() throws {
        let sandbox = try Sandbox()
        try prepare(sandbox)
        let server = try RunningServer(sandbox)
        _ = try completedForm(sandbox, name: "hall-j")
        let id = try XCTUnwrap(try sandbox.formJSON("hall-j", in: "CompletedMIs")["id"] as? String).lowercased()
        let upload = try sandbox.run(["upload", "--all", "--json"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(upload.stdout.utf8)) as? [String: Any], upload.stdout)
        XCTAssertEqual(object["uploadedCount"] as? Int, 1)
        XCTAssertEqual(object["failedCount"] as? Int, 0)
        let forms = try XCTUnwrap(object["forms"] as? [[String: Any]])
        XCTAssertEqual(forms.map { $0["id"] as? String }, [id])
        XCTAssertEqual(forms.first?["form"] as? String, "ana/hall-j")
        XCTAssertEqual((forms.first?["receipt"] as? [String: Any])?["id"] as? String, id)
        _ = server
    }

    func testUnreadableBindPasswordFileIsReportedByConfigCheckAndStopsTheServer() throws {
        let sandbox = try Sandbox()
        let text = try String(contentsOf: sandbox.config, encoding: .utf8)
            .replacingOccurrences(of: sandbox.directory.bindPasswordFile, with: "/nonexistent/mi-bind.pw")
        let bad = sandbox.root.appendingPathComponent("NoPassword.plist")
        try text.write(to: bad, atomically: true, encoding: .utf8)

        let check = try sandbox.run(["config", "check", "--config", bad.path], as: nil)
        XCTAssertEqual(check.status, 78, check.output)
        XCTAssertTrue(check.stdout.contains("error: LDAP.BindPasswordFile: /nonexistent/mi-bind.pw does not exist"), check.stdout)

        let server = Sandbox.binary.deletingLastPathComponent().appendingPathComponent("mi-server")
        let run = try Sandbox.execute(server, ["--config", bad.path], in: sandbox.root)
        XCTAssertEqual(run.status, 78, run.output)
        XCTAssertTrue(run.stderr.contains("LDAP.BindPasswordFile"), run.stderr)
    }

    func testServerCommandLineMistakesExitWithUsage() throws {
        let server = Sandbox.binary.deletingLastPathComponent().appendingPathComponent("mi-server")
        let unknown = try Sandbox.execute(server, ["--bogus"])
        XCTAssertEqual(unknown.status, 64, unknown.output)
        XCTAssertTrue(unknown.stderr.contains("--bogus"), unknown.stderr)
        XCTAssertEqual(try Sandbox.execute(server, ["--config"]).status, 64)
        let help = try Sandbox.execute(server, ["--help"])
        XCTAssertEqual(help.status, 0, help.output)
        XCTAssertTrue(help.stdout.contains("--config <path>"), help.stdout)
    }
}
