import Foundation
import XCTest
import MIKit
import TestSupport

/// `mi sync` and `mi login` bringing back a form the office sent back, against the real
/// mi-server on loopback: the foreman sends it back with `POST /api/v1/submissions/{id}/send-back`,
/// and the list, receipt, form.json and media `mi sync` reads come from mi-server. The test proxy
/// in front garbles the list once (`--stub-returned` while its file exists), as a misbehaving
/// server would.
final class SyncTests: XCTestCase {
    private func json(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.output)
    }

    private func login(_ sandbox: Sandbox, _ user: String, json: Bool = false) throws -> RunResult {
        try? FileManager.default.removeItem(at: sandbox.stateFolder(for: user).appendingPathComponent("mi/session.json"))
        return try Sandbox.execute(Sandbox.binary, ["login", "--user", user, "--password-stdin"] + (json ? ["--json"] : []),
                                   stdin: TestDirectory.password(for: user) + "\n",
                                   environment: sandbox.environment(for: user), in: sandbox.root)
    }

    /// Every file under the store with its bytes, to show a command changed nothing.
    private func snapshot(_ sandbox: Sandbox) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = sandbox.documents
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        for case let url as URL in walker where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            files[url.path] = try Data(contentsOf: url)
        }
        return files
    }

    private func flags(_ sandbox: Sandbox, _ name: String) throws -> [[String: Any]] {
        let review = try sandbox.run(["review", name, "--json"])
        XCTAssertEqual(review.status, 0, review.output)
        return try XCTUnwrap(try json(review)["flags"] as? [[String: Any]], review.stdout)
    }

    func testASentBackFormComesBackWithItsFlagsAndIsSubmittedOnceEachIsAnswered() throws {
        let returned = FileManager.default.temporaryDirectory.appendingPathComponent("mi-returned-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: returned) }
        let serverPort = Sandbox.freePort()
        var settings = Sandbox.ServerSettings()
        settings.listenPort = serverPort
        let proxy = try RunningProxy(target: serverPort, stubReturned: returned)
        settings.port = proxy.port
        let sandbox = try Sandbox(server: settings)
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)

        // ana's form with a photo, uploaded by the foreman: the server holds version 1.
        let name = try ServerTests.completedForm(sandbox, name: "hall-b")
        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let storedForm = try Data(contentsOf: sandbox.root.appendingPathComponent("server-data/submissions/\(id)/form.json"))

        // Nothing sent back yet: an empty list, templates synced.
        let before = try sandbox.run(["sync", "--json"])
        XCTAssertEqual(before.status, 0, before.output)
        XCTAssertEqual((try json(before)["returned"] as? [Any])?.count, 0, before.stdout)
        XCTAssertNil(try json(before)["serverNote"] as? String, before.stdout)

        // A server answer mi cannot read fails the sync, not the login; nothing is placed.
        try Data("[{".utf8).write(to: returned)
        let broken = try login(sandbox, "ana", json: true)
        XCTAssertEqual(broken.status, 0, broken.output)
        XCTAssertTrue((try json(broken)["syncFailure"] as? String ?? "").contains("sync after login failed"), broken.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name).path))
        try FileManager.default.removeItem(at: returned)

        // The office sends it back with two flags, through mi-server's API.
        let sendBack = try JSONSerialization.data(withJSONObject: [
            "note": "Two things to fix",
            "flags": [["question": "seal", "note": "the seal photo is blurred"], ["question": "weight", "note": "weigh it again"]],
        ])
        let token = try BackupTests.token("fiona", port: serverPort)
        let posted = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                         ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                                          "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                                          "--data-binary", String(decoding: sendBack, as: UTF8.self),
                                          "http://127.0.0.1:\(serverPort)/api/v1/submissions/\(id)/send-back"])
        XCTAssertEqual(posted.stdout, "200", posted.output)
        let synced = try sandbox.run(["sync", "--json"])
        XCTAssertEqual(synced.status, 0, synced.output)
        let placed = try XCTUnwrap((try json(synced)["returned"] as? [[String: Any]])?.first, synced.stdout)
        XCTAssertEqual(placed["name"] as? String, name)
        XCTAssertEqual(placed["supersedes"] as? Int, 1)
        XCTAssertEqual((placed["flags"] as? [[String: Any]])?.compactMap { $0["question"] as? String }, ["seal", "weight"])
        XCTAssertEqual((try json(synced)["messages"] as? [[String: Any]])?.first?["text"] as? String, "Two things to fix")
        let folder = sandbox.formFolder(name)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)), ["form.json", "Qid2(1).jpg"])
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("Qid2(1).jpg")),
                       try Data(contentsOf: sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg")))
        let local = try sandbox.formJSON(name)
        XCTAssertEqual(local["status"] as? String, "incomplete")
        XCTAssertEqual(local["supersedes"] as? Int, 1)
        XCTAssertEqual(local["returnNote"] as? String, "Two things to fix")
        let localFlags = try XCTUnwrap(local["flags"] as? [[String: Any]])
        XCTAssertEqual(localFlags.first?["media"] as? [String], ["Qid2(1).jpg"], "the answer as it stood is kept with the flag")
        XCTAssertEqual(localFlags.last?["value"] as? Double, 6)
        XCTAssertTrue((local["audit"] as? [[String: Any]] ?? []).contains { $0["action"] as? String == "returned" && $0["by"] as? String == "fiona" })

        // Again, at the next login: the form is here already and is left as it is.
        let formBytes = try Data(contentsOf: folder.appendingPathComponent("form.json"))
        let again = try login(sandbox, "ana")
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.stdout.contains("a form with that id is already here"), again.stdout)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("form.json")), formBytes)

        // review lists the flags, fill starts at the first one with its note, submit waits.
        XCTAssertEqual(try flags(sandbox, name).map { $0["answered"] as? Bool }, [false, false])
        let text = try sandbox.run(["review", name])
        XCTAssertTrue(text.stdout.contains("Flagged by the office (2 not answered yet)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("seal — the seal photo is blurred"), text.stdout)
        let fill = try sandbox.run(["fill", name], stdin: ":x\n")
        XCTAssertEqual(fill.status, 0, fill.output)
        XCTAssertTrue(fill.stdout.contains("Flagged by fiona: the seal photo is blurred (not answered yet)"), fill.stdout)
        XCTAssertFalse(fill.stdout.contains("Location (building"), "fill starts at the first flagged question: \(fill.stdout)")
        let refused = try sandbox.run(["submit", name])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("seal (“the seal photo is blurred”)") && refused.stderr.contains("weight (“weigh it again”)"), refused.stderr)

        // A reply to a question nobody flagged changes nothing.
        let unflagged = try snapshot(sandbox)
        let wrong = try sandbox.run(["answer", name, "location", "--reply", "fine"])
        XCTAssertEqual(wrong.status, 66, wrong.output)
        XCTAssertTrue(wrong.stderr.contains("has no flag on location (flagged: seal, weight)"), wrong.stderr)
        XCTAssertEqual(try snapshot(sandbox), unflagged)

        // One answer changed, the other replied to: submitted, the flags kept with the reply.
        XCTAssertEqual(try sandbox.run(["answer", name, "weight", "6.5"]).status, 0)
        XCTAssertEqual(try flags(sandbox, name).map { $0["answered"] as? Bool }, [false, true])
        let reply = try sandbox.run(["answer", name, "seal", "--reply", "the seal is intact; no sharper photo possible"])
        XCTAssertEqual(reply.status, 0, reply.output)
        XCTAssertTrue(reply.stdout.contains("every flag is answered"), reply.stdout)
        let submit = try sandbox.run(["submit", name])
        XCTAssertEqual(submit.status, 0, submit.output)
        let completed = try sandbox.formJSON(name, in: "CompletedMIs")
        XCTAssertEqual(completed["supersedes"] as? Int, 1)
        XCTAssertEqual((completed["flags"] as? [[String: Any]])?.first?["reply"] as? String, "the seal is intact; no sharper photo possible")
        XCTAssertEqual(try Data(contentsOf: sandbox.root.appendingPathComponent("server-data/submissions/\(id)/form.json")), storedForm,
                       "the server's copy is untouched by the sync")

        // The foreman uploads it: version 2 supersedes version 1, which stays byte for byte.
        let version1 = sandbox.root.appendingPathComponent("server-data/submissions/\(id)")
        let version1Files = try Files.names(in: version1).map { try Data(contentsOf: version1.appendingPathComponent($0)) }
        let corrected = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(corrected.status, 0, corrected.output)
        XCTAssertEqual(try Files.names(in: version1).map { try Data(contentsOf: version1.appendingPathComponent($0)) }, version1Files)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("server-data/versions/\(id)/2/form.json").path))
        let versions = try BackupTests.get("/api/v1/submissions/\(id)/versions", port: serverPort, token: token)
        XCTAssertEqual(versions.status, 200)
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: versions.body) as? [String: Any])
        XCTAssertEqual(listed["current"] as? Int, 2, String(decoding: versions.body, as: UTF8.self))
        let diff = try BackupTests.get("/api/v1/submissions/\(id)/diff?from=1&to=2", port: serverPort, token: token)
        let changes = try XCTUnwrap((try JSONSerialization.jsonObject(with: diff.body) as? [String: Any])?["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.filter { $0["kind"] as? String == "answer" }.map { "\($0["question"] ?? "") \($0["before"] ?? "") → \($0["after"] ?? "")" },
                       ["weight 6 → 6.5"], "exactly the changed answer")
        XCTAssertEqual(changes.filter { $0["kind"] as? String == "reply" }.compactMap { $0["question"] as? String }, ["seal"])
        XCTAssertEqual(Set(changes.compactMap { $0["kind"] as? String }), ["answer", "flag", "reply"], String(decoding: diff.body, as: UTF8.self))
        // A stale copy (version 1's content again) is refused naming the current version.
        let stale = try BackupTests.post(version1, port: serverPort, token: token)
        XCTAssertEqual(stale.status, 409)
        XCTAssertTrue(String(decoding: stale.body, as: UTF8.self).contains("as version 2"), String(decoding: stale.body, as: UTF8.self))

        // Offline: one clear message, exit 75, nothing changed.
        proxy.process.terminate()
        proxy.process.waitUntilExit()
        let store = try snapshot(sandbox)
        let offline = try sandbox.run(["sync"])
        XCTAssertEqual(offline.status, 75, offline.output)
        XCTAssertEqual(offline.stderr.split(separator: "\n").count, 1, offline.stderr)
        XCTAssertEqual(offline.stdout, "")
        XCTAssertEqual(try snapshot(sandbox), store)
        withExtendedLifetime(server) {}
    }

    /// A returned form's video larger than any response `mi` holds in memory (64 MiB) comes back
    /// whole: written to disk as it arrives, checked against the receipt, placed with the form.
    func testAReturnedFormWithAVideoLargerThanAnyResponseComesBackWhole() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let name = try ServerTests.completedForm(sandbox, name: "hall-c", mediaBytes: 70 << 20)
        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        let video = try XCTUnwrap(Files.names(in: sandbox.formFolder(name, in: "CompletedMIs")).first { $0.hasSuffix(".mp4") })
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let stored = sandbox.root.appendingPathComponent("server-data/submissions/\(id)/\(video)")
        let storedDigest = try FileDigest.sha256(of: stored).hex

        let token = try BackupTests.token("fiona", port: sandbox.server.port)
        let posted = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                         ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                                          "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                                          "--data-binary", #"{"note": "film the gauge again", "flags": []}"#,
                                          "http://127.0.0.1:\(sandbox.server.port)/api/v1/submissions/\(id)/send-back"])
        XCTAssertEqual(posted.stdout, "200", posted.output)
        let synced = try sandbox.run(["sync", "--json"])
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertEqual((try json(synced)["returned"] as? [[String: Any]])?.count, 1, synced.stdout)
        let placed = sandbox.formFolder(name).appendingPathComponent(video)
        XCTAssertEqual(try FileDigest.sha256(of: placed).size, 70 << 20)
        XCTAssertEqual(try FileDigest.sha256(of: placed).hex, storedDigest)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: sandbox.documents.path).filter { $0.hasPrefix(".") }
        XCTAssertFalse(hidden.contains { $0.hasPrefix(DurableFile.temporaryPrefix) }, "no staging folder is left behind: \(hidden)")
        withExtendedLifetime(server) {}
    }
}
