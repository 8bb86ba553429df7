import Foundation
import XCTest

/// The built mi-server with the real slapd, probed as a hostile client would: the requests that
/// showed each hole, sent with curl on loopback.
final class TrustTests: XCTestCase {
    /// form.json of a completed extinguisher check of ana's, made by `mi`, with `edit` applied.
    private func formFile(_ sandbox: Sandbox, name: String, edit: (inout [String: Any]) -> Void) throws -> URL {
        _ = try sandbox.newForm("extinguisher-check", name: name)
        let answers = sandbox.root.appendingPathComponent("a-\(name).json")
        try Data(ForemanTests.extinguisherAnswers.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path]).status, 0)
        XCTAssertEqual(try sandbox.run(["submit", name]).status, 0)
        var json = try sandbox.formJSON(name, in: "CompletedMIs")
        edit(&json)
        let file = sandbox.root.appendingPathComponent("form-\(name).json")
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        return file
    }

    /// `POST /api/v1/submissions` with form.json as `curl -F` sends it, as fiona.
    private func upload(_ sandbox: Sandbox, _ file: URL, token: String) throws -> String {
        try sandbox.curl(["-H", "Authorization: Bearer \(token)", "-F", "form=@\(file.path);filename=form.json;type=application/json"],
                         path: "/api/v1/submissions")
    }

    /// The probe: a form.json whose `user` is `../../x`, a user the directory does not
    /// know, or a foreman, or whose template the server never had, was stored (201). Each is now
    /// 422 naming it, and nothing is stored; with the directory down, 503 with Retry-After.
    func testTheServerRefusesFormsOfUsersAndTemplatesItCannotVouchFor() throws {
        let directory = try TestDirectory()
        defer { directory.stop() }
        let sandbox = try Sandbox(ldap: .init(timeoutSeconds: 2), directory: directory)
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        let token = try sandbox.apiToken("fiona")
        let cases: [(name: String, edit: (inout [String: Any]) -> Void, message: String)] = [
            ("dots", { $0["user"] = "../../x" }, "which cannot be a user name: it contains"),
            ("stranger", { $0["user"] = "mallory" }, "names the user mallory, whom the directory does not know"),
            ("outside", { $0["user"] = "zed" }, "names the user zed, whom the directory does not know"),
            ("foreman", { $0["user"] = "gus" }, "names the user gus, who is a foreman, not a technician"),
            ("shouted", { $0["user"] = "ANA" }, "names the user ANA, which the directory spells ana"),
            ("unknown", { json in
                json["templateID"] = "never-had"
                var template = json["template"] as? [String: Any] ?? [:]
                template["id"] = "never-had"
                json["template"] = template
            }, "is of template never-had, which this server does not have"),
        ]
        for (name, edit, message) in cases {
            let answer = try upload(sandbox, try formFile(sandbox, name: name, edit: edit), token: token)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 422"), "\(name): \(answer)")
            XCTAssertTrue(answer.contains(message), "\(name): \(answer)")
        }
        let submissions = sandbox.root.appendingPathComponent("server-data/submissions")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: submissions.path)) ?? [], [], "nothing was stored")

        // The directory down: the server cannot vouch for the user, so it stores nothing unchecked.
        let file = try formFile(sandbox, name: "later", edit: { _ in })
        directory.kill()
        let unavailable = try upload(sandbox, file, token: token)
        XCTAssertTrue(unavailable.hasPrefix("HTTP/1.1 503"), unavailable)
        XCTAssertTrue(unavailable.lowercased().contains("retry-after: 30"), unavailable)
        XCTAssertTrue(unavailable.contains("cannot check with the directory that ana is a technician"), unavailable)
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: submissions.path)) ?? [], [])
        withExtendedLifetime(server) {}
    }
}
