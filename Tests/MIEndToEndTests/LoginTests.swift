import Foundation
import XCTest

/// `mi login` against a real slapd: search-then-bind, roles, sessions.
final class LoginTests: XCTestCase {
    func login(_ sandbox: Sandbox, _ user: String, password: String? = nil, state: String? = nil) throws -> RunResult {
        try Sandbox.execute(Sandbox.binary, ["login", "--user", user, "--password-stdin"],
                            stdin: (password ?? TestDirectory.password(for: user)) + "\n",
                            environment: sandbox.environment(for: state ?? user), in: sandbox.root)
    }

    func testRightPasswordMakesAnOwnerOnlySessionWithoutThePassword() throws {
        let sandbox = try Sandbox()
        let result = try login(sandbox, "ana")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("Logged in as Ana Pérez (ana), technician"), result.stdout)

        let folder = sandbox.stateFolder(for: "ana").appendingPathComponent("mi")
        let file = folder.appendingPathComponent("session.json")
        let fileMode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        let folderMode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int)
        XCTAssertEqual(fileMode & 0o777, 0o600)
        XCTAssertEqual(folderMode & 0o777, 0o700)
        let session = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertEqual(session["user"] as? String, "ana")
        XCTAssertEqual(session["role"] as? String, "technician")
        XCTAssertEqual(session["dn"] as? String, "uid=ana,ou=people,dc=example,dc=test")
        XCTAssertNotNil(session["expiresAt"])
        // The password is nowhere on disk: not in the session, not in the store.
        for root in [sandbox.root.appendingPathComponent("state"), sandbox.documents] {
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            for name in files {
                let data = (try? Data(contentsOf: root.appendingPathComponent(name))) ?? Data()
                XCTAssertNil(data.range(of: Data("ana-password".utf8)), "password found in \(name)")
            }
        }
        let whoami = try sandbox.run(["whoami", "--json"], as: "ana")
        XCTAssertEqual(whoami.status, 0, whoami.output)
        XCTAssertTrue(whoami.stdout.contains("\"displayName\" : \"Ana Pérez\""), whoami.stdout)
    }

    func testWrongPasswordUnknownUserAndEmptyPasswordAreRefusedAndKeepThePreviousSession() throws {
        let sandbox = try Sandbox()
        XCTAssertEqual(try login(sandbox, "ana").status, 0)
        let file = sandbox.stateFolder(for: "ana").appendingPathComponent("mi/session.json")
        let before = try Data(contentsOf: file)
        let cases: [(String, String, String)] = [
            ("ana", "wrong", "wrong user name or password"),
            ("nobody-here", "whatever", "wrong user name or password"),
            ("ana", "", "empty password"),
            ("*", "ana-password", "wrong user name or password"),
            ("ana)(uid=*", "ana-password", "wrong user name or password"),
            ("*)(|(uid=*", "ana-password", "wrong user name or password"),
            ("bob", "ana-password", "wrong user name or password"),
        ]
        for (user, password, expected) in cases {
            let result = try login(sandbox, user, password: password, state: "ana")
            XCTAssertNotEqual(result.status, 0, "\(user) / \(password)")
            XCTAssertTrue(result.stderr.lowercased().contains(expected), "\(user): \(result.stderr)")
            XCTAssertEqual(try Data(contentsOf: file), before, "a failed login changed the session")
        }
    }

    func testPunctuationUserAndSpecialCharacterPassword() throws {
        let sandbox = try Sandbox()
        let obrien = try login(sandbox, "o'brien.j-k")
        XCTAssertEqual(obrien.status, 0, obrien.output)
        let carla = try login(sandbox, "carla")
        XCTAssertEqual(carla.status, 0, carla.output)
        XCTAssertEqual(try sandbox.run(["templates", "--offline"], as: "o'brien.j-k").status, 0)
    }

    func testForemanByMemberAndByMemberUidAndTechnicianOtherwise() throws {
        let sandbox = try Sandbox()
        let fiona = try login(sandbox, "fiona")
        XCTAssertTrue(fiona.stdout.contains("foreman"), fiona.output)
        let gus = try login(sandbox, "gus")
        XCTAssertTrue(gus.stdout.contains("technician"), "gus is only in the posix group: \(gus.output)")

        let posix = try Sandbox(ldap: .init(posixGroup: true))
        let gusPosix = try login(posix, "gus")
        XCTAssertTrue(gusPosix.stdout.contains("foreman"), gusPosix.output)
        let fionaPosix = try login(posix, "fiona")
        XCTAssertTrue(fionaPosix.stdout.contains("technician"), fionaPosix.output)
    }

    func testRolesGateTheCommands() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "fiona")
        let users = try sandbox.run(["users", "--json"], as: "fiona")
        XCTAssertEqual(users.status, 0, users.output)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [String: Any])
        let list = try XCTUnwrap(object["users"] as? [[String: Any]])
        XCTAssertEqual(Set(list.compactMap { $0["user"] as? String }), ["ana", "bob", "carla", "fiona", "gus", "o'brien.j-k"])
        XCTAssertEqual(list.first { $0["user"] as? String == "fiona" }?["role"] as? String, "foreman")

        let technician = try sandbox.run(["users"], as: "ana")
        XCTAssertNotEqual(technician.status, 0)
        XCTAssertTrue(technician.stderr.contains("this command is for foremen"), technician.stderr)
        let foremanNew = try sandbox.run(["new", "pump-inspection"], as: "fiona")
        XCTAssertNotEqual(foremanNew.status, 0)
        XCTAssertTrue(foremanNew.stderr.contains("this command is for technicians"), foremanNew.stderr)
    }

    func testNoSessionExpiredSessionAndLogout() throws {
        let sandbox = try Sandbox()
        let none = try sandbox.run(["list"], as: nil)
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("not logged in — run `mi login`"), none.stderr)

        XCTAssertEqual(try login(sandbox, "ana").status, 0)
        let file = sandbox.stateFolder(for: "ana").appendingPathComponent("mi/session.json")
        var text = try String(contentsOf: file, encoding: .utf8)
        let expired = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))
        text = try NSRegularExpression(pattern: #""expiresAt" : "[^"]+""#)
            .stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "\"expiresAt\" : \"\(expired)\"")
        try Data(text.utf8).write(to: file)
        let stale = try sandbox.run(["list"], as: "ana")
        XCTAssertNotEqual(stale.status, 0)
        XCTAssertTrue(stale.stderr.contains("session expired — run `mi login`"), stale.stderr)

        XCTAssertEqual(try login(sandbox, "ana").status, 0)
        XCTAssertEqual(try sandbox.run(["list"], as: "ana").status, 0)
        XCTAssertEqual(try sandbox.run(["logout"], as: "ana").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        let after = try Sandbox.execute(Sandbox.binary, ["list"], environment: sandbox.environment(for: "ana"), in: sandbox.root)
        XCTAssertTrue(after.stderr.contains("not logged in"), after.stderr)
    }

    func testMessagesAreShownOnceAtLoginAndFormsCloseToExpiry() throws {
        let sandbox = try Sandbox(expiryDays: 3)
        try sandbox.importSamples(as: "bob")
        let name = try sandbox.newForm("extinguisher-check", as: "bob", name: "old-one")
        try ExpiryTests.age(sandbox, name, user: "bob", days: 2)
        let errors = sandbox.documents.appendingPathComponent("Errors")
        try FileManager.default.createDirectory(at: errors, withIntermediateDirectories: true)
        try Data(#"[{"at":"2026-11-20T08:00:00Z","text":"form pump-3 was reassigned to carla by fiona"}]"#.utf8)
            .write(to: errors.appendingPathComponent("bob.json"))

        let first = try login(sandbox, "bob")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.stdout.contains("form pump-3 was reassigned to carla by fiona"), first.stdout)
        XCTAssertTrue(first.stdout.contains("old-one: expires"), first.stdout)
        let second = try login(sandbox, "bob")
        XCTAssertFalse(second.stdout.contains("reassigned"), "a message is shown once: \(second.stdout)")
    }

    func testStartTLSAgainstAServerWithoutTLSIsRefused() throws {
        let sandbox = try Sandbox(ldap: .init(startTLS: true))
        let result = try login(sandbox, "ana")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("StartTLS"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.stateFolder(for: "ana").appendingPathComponent("mi/session.json").path))
    }

    func testDirectoryStoppedMidSessionGivesACleanErrorWithinTheTimeout() throws {
        let own = try TestDirectory()
        let sandbox = try Sandbox(ldap: .init(timeoutSeconds: 2), directory: own)
        XCTAssertEqual(try login(sandbox, "fiona").status, 0)
        own.kill()
        defer { own.stop() }
        let started = Date()
        let users = try sandbox.run(["users"], as: "fiona")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertNotEqual(users.status, 0)
        XCTAssertTrue(users.stderr.contains("directory unreachable at \(own.url)"), users.stderr)
        XCTAssertLessThan(elapsed, 2 + 3)
        // Offline work goes on with the session: the store needs no directory.
        XCTAssertEqual(try sandbox.run(["templates", "--offline"], as: "fiona").status, 0)
        let again = try login(sandbox, "fiona")
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("directory unreachable"), again.stderr)
    }
}
