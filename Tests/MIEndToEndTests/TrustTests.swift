import Foundation
import XCTest

/// The built mi-server with the real slapd, probed as a hostile client would: the requests that
/// showed each hole, sent with curl on loopback.
final class TrustTests: XCTestCase {
    /// `POST /api/v1/session` with `user` and `password`: the status and the JSON body.
    private func signIn(_ sandbox: Sandbox, _ user: String, _ password: String) throws -> (status: Int, body: [String: Any]) {
        let credentials = try JSONSerialization.data(withJSONObject: ["user": user, "password": password])
        let result = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                         ["-sS", "-m", "10", "-o", "-", "-w", "\n%{http_code}", "-X", "POST",
                                          "-H", "Content-Type: application/json",
                                          "--data-binary", String(decoding: credentials, as: UTF8.self),
                                          "http://127.0.0.1:\(sandbox.server.port)/api/v1/session"])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))) as? [String: Any]
        return (status, body ?? [:])
    }

    /// The issue's probe: after 5 wrong passwords for one account, its fullwidth spelling (which
    /// slapd matches as the same account) signed in with 200 — each of its width variants had 5
    /// guesses of its own. Now every spelling shares one count, and a spelling that signs in
    /// gets the directory's own name.
    func testEverySpellingOfAnAccountSharesItsFailedSignInCount() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let fullwidth = "ｂｏｂ"
        let signedIn = try signIn(sandbox, fullwidth, TestDirectory.password(for: "bob"))
        XCTAssertEqual(signedIn.status, 200, "\(signedIn.body)")
        XCTAssertEqual(signedIn.body["user"] as? String, "bob", "the session is the directory's bob, not the typed spelling")

        for spelling in ["bob", "ＢＯＢ", "Bob", "bob", "ｂｏｂ"] {
            XCTAssertEqual(try signIn(sandbox, spelling, "wrong").status, 401, spelling)
        }
        for spelling in ["ｂｏｂ", "ＢＯＢ", "bob", "ｂoｂ"] {
            let refused = try signIn(sandbox, spelling, TestDirectory.password(for: "bob"))
            XCTAssertEqual(refused.status, 429, "\(spelling): \(refused.body)")
        }
        XCTAssertEqual(try signIn(sandbox, "carla", TestDirectory.password(for: "carla")).status, 200, "other accounts are not held")
        withExtendedLifetime(server) {}
    }

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

    /// The issue's probe: a form.json whose `user` is `../../x`, a user the directory does not
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
            ("foreman", { $0["user"] = "fiona" }, "names the user fiona, who is a foreman, not a technician"),
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
        try sandbox.ensureLoggedIn("fiona")
        directory.kill()
        let unavailable = try upload(sandbox, file, token: token)
        XCTAssertTrue(unavailable.hasPrefix("HTTP/1.1 503"), unavailable)
        XCTAssertTrue(unavailable.lowercased().contains("retry-after: 10"), unavailable)
        XCTAssertTrue(unavailable.contains("cannot check with the directory that ana is a technician"), unavailable)
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: submissions.path)) ?? [], [])
        // mi upload tries again as Retry-After says, then gives up with 75 (try again later), keeping the form.
        let upload = try sandbox.run(["upload", "ana/later"], as: "fiona")
        XCTAssertEqual(upload.status, 75, upload.output)
        XCTAssertTrue(upload.stderr.contains("cannot check with the directory"), upload.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("later", in: "CompletedMIs").path))
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: submissions.path)) ?? [], [])
        withExtendedLifetime(server) {}
    }

    /// The issue's probe: request headers over the limit reset the connection instead of
    /// answering. They are 431 with the error body, read whole by the client.
    func testHeadersOverTheLimitAre431NotAReset() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "a", count: 120 * 1024) + "\r\n\r\n"
        let output = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"),
                                         RawClient.arguments(port: sandbox.server.port, request)).output
        XCTAssertTrue(output.contains("HTTP/1.1 431 Request Header Fields Too Large"), String(output.prefix(600)))
        XCTAssertTrue(output.contains("the request's headers are larger than the server reads"), String(output.prefix(600)))
        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertTrue(log.contains("client error: the request's headers are larger"), log)
    }

    /// The issue's probe: `GET /login?next=/%09/127.0.0.1:47999/phish` with a valid cookie
    /// answered 303 to `/<TAB>/127.0.0.1:47999/phish`, which a browser reads as another host.
    /// Signed in through the built server's own form (curl with a cookie jar), every encoded
    /// form of a hostile `next` now goes to `/`, and the office's own paths still work.
    func testAfterSignInNextGoesOnlyToAPathOfThisSite() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let jar = sandbox.root.appendingPathComponent("cookies.txt").path
        let base = "http://127.0.0.1:\(sandbox.server.port)"
        func curl(_ arguments: [String]) throws -> String {
            try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "-m", "5", "-b", jar, "-c", jar] + arguments).stdout
        }
        let form = try curl(["\(base)/login"])
        let csrf = try XCTUnwrap(form.range(of: #"name="_csrf" value="([^"]+)""#, options: .regularExpression).map {
            String(form[$0].dropFirst(#"name="_csrf" value=""#.count).dropLast())
        }, form)
        let signIn = try curl(["-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode", "user=fiona",
                               "--data-urlencode", "password=\(TestDirectory.password(for: "fiona"))",
                               "--data-urlencode", "_csrf=\(csrf)", "--data-urlencode", "next=/", "\(base)/login"])
        XCTAssertEqual(signIn, "303")
        for next in ["/%09/127.0.0.1:47999/phish", "/%0a/evil.example", "/%0d/evil.example", "//evil.example",
                     "/%5cevil.example", "%5c%5cevil.example", "https://evil.example", "/%20/evil.example", "/%e3%80%80/evil"] {
            let answer = try curl(["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "\(base)/login?next=\(next)"])
            XCTAssertEqual(answer, "303 \(base)/", next)
        }
        let own = try curl(["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "\(base)/login?next=/submissions%3Fq%3Dpump"])
        XCTAssertEqual(own, "303 \(base)/submissions?q=pump")
        withExtendedLifetime(server) {}
    }

    /// Holds kept-alive connections from one address: each asks `/health` once; prints, as JSON,
    /// the statuses, whether the server closed every served one and in how many seconds, and
    /// the status of one more connection after that.
    static let idleScript = #"""
        import json, socket, sys, time
        port = int(sys.argv[1])
        def ask(s):
            s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
            return int(answer.split(b" ")[1]) if answer else 0
        held, statuses = [], []
        for _ in range(33):
            s = socket.create_connection(("127.0.0.1", port))
            s.settimeout(10)
            status = ask(s)
            statuses.append(status)
            if status != 200:
                break
            held.append(s)
        start = time.time()
        closed = True
        for s in held:
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
            except OSError:
                closed = False
        seconds = time.time() - start
        time.sleep(0.3)
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(10)
        print(json.dumps({"statuses": statuses, "closed": closed, "seconds": seconds, "next": ask(s)}))
        """#

    /// The issue's probe: 32 idle keep-alive connections from one address stayed open for
    /// minutes and the address's next connection got 503. With Server.IdleTimeoutSeconds 1
    /// the built server closes them, and the 33rd connection is served.
    func testIdleConnectionsAreClosedAndTheAddressIsServedAgain() throws {
        var settings = Sandbox.ServerSettings()
        settings.extraKeys = "<key>IdleTimeoutSeconds</key><integer>1</integer>"
        let sandbox = try Sandbox(server: settings)
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let result = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"),
                                         ["python3", "-c", Self.idleScript, String(sandbox.server.port)])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.output)
        let statuses = json["statuses"] as? [Int] ?? []
        XCTAssertEqual(statuses.count, 33, "\(json)")
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 32, "\(json)")
        XCTAssertEqual(statuses.last, 503, "the 33rd while 32 are open: \(json)")
        XCTAssertEqual(json["closed"] as? Bool, true, "the server closed every idle connection: \(json)")
        XCTAssertLessThan(json["seconds"] as? Double ?? 99, 5, "\(json)")
        XCTAssertEqual(json["next"] as? Int, 200, "the address is served again: \(json)")
        withExtendedLifetime(server) {}
    }
}
