import Foundation
import XCTest
import TestSupport

/// A real mi-server on loopback, started from the built binary with the sandbox's Config.plist.
final class RunningServer {
    let process = Process()
    let log: URL

    /// Starts mi-server with the sandbox's Config.plist, or `config` (another server's).
    init(_ sandbox: Sandbox, config: URL? = nil) throws {
        log = sandbox.root.appendingPathComponent("server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = Sandbox.binary.deletingLastPathComponent().appendingPathComponent("mi-server")
        process.arguments = ["--config", (config ?? sandbox.config).path]
        process.currentDirectoryURL = sandbox.root
        let handle = try FileHandle(forWritingTo: log)
        process.standardError = handle
        process.standardOutput = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOf: log, encoding: .utf8), text.contains("listening on") { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw TestDirectoryError("mi-server did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }
}

/// Templates downloaded from, and forms uploaded to, the real mi-server.
final class ServerTests: XCTestCase {
    func prepare(_ sandbox: Sandbox) throws { try Self.prepare(sandbox) }

    func completedForm(_ sandbox: Sandbox, name: String, mediaBytes: Int = 0) throws -> String {
        try Self.completedForm(sandbox, name: name, mediaBytes: mediaBytes)
    }

    /// The sample templates in the server's folder.
    static func prepare(_ sandbox: Sandbox) throws {
        let templates = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        for name in ["pump-inspection.json", "extinguisher-check.json"] {
            try FileManager.default.copyItem(at: sandbox.repository.appendingPathComponent("Samples/templates/\(name)"),
                                             to: templates.appendingPathComponent(name))
        }
    }

    /// A completed extinguisher check of ana's with a photo, and a video of `mediaBytes` when not 0.
    static func completedForm(_ sandbox: Sandbox, name: String, mediaBytes: Int = 0) throws -> String {
        let templates = try sandbox.run(["templates"])
        XCTAssertEqual(templates.status, 0, templates.output)
        _ = try sandbox.newForm("extinguisher-check", name: name)
        let answers = sandbox.root.appendingPathComponent("a-\(name).json")
        try Data(ForemanTests.extinguisherAnswers.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path]).status, 0)
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        XCTAssertEqual(try sandbox.run(["attach", name, "seal", photo]).status, 0)
        if mediaBytes > 0 {
            let big = sandbox.root.appendingPathComponent("big-\(name).mp4")
            _ = FileManager.default.createFile(atPath: big.path, contents: nil)
            let handle = try FileHandle(forWritingTo: big)
            for _ in 0..<(mediaBytes >> 20) { handle.write(Data(repeating: 9, count: 1 << 20)) }
            try handle.close()
            XCTAssertEqual(try sandbox.run(["attach", name, "location", big.path]).status, 0)
        }
        XCTAssertEqual(try sandbox.run(["submit", name]).status, 0)
        return name
    }

    func testDownloadCacheUploadWithReceiptAndOfflineCache() throws {
        let sandbox = try Sandbox()
        try prepare(sandbox)
        let server = try RunningServer(sandbox)
        // The login syncs: it downloads the templates (`mi sync`).
        let first = try Sandbox.execute(Sandbox.binary, ["login", "--user", "ana", "--password-stdin", "--json"],
                                        stdin: TestDirectory.password(for: "ana") + "\n",
                                        environment: sandbox.environment(for: "ana"), in: sandbox.root)
        XCTAssertEqual(first.status, 0, first.output)
        let login = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        let synced = try XCTUnwrap((login["sync"] as? [String: Any])?["templates"] as? [String: Any], first.stdout)
        XCTAssertEqual(Set(synced["downloaded"] as? [String] ?? []), ["pump-inspection", "extinguisher-check"])
        let again = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try sandbox.run(["templates", "--json"]).stdout.utf8)) as? [String: Any])
        XCTAssertEqual((again["downloaded"] as? [String])?.count, 0, "unchanged templates are not downloaded again")

        let name = try completedForm(sandbox, name: "hall-b")
        let folder = sandbox.formFolder(name, in: "CompletedMIs")
        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.stdout.contains("Uploaded ana/hall-b (2 parts, receipt verified)"), upload.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path), "deleted only after the receipt matched")
        let stored = sandbox.root.appendingPathComponent("server-data/submissions/\(id)")
        XCTAssertEqual(try Data(contentsOf: stored.appendingPathComponent("Qid2(1).jpg")),
                       try Data(contentsOf: sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg")))
        let uploadedForm = try String(contentsOf: stored.appendingPathComponent("form.json"), encoding: .utf8)
        XCTAssertTrue(uploadedForm.contains(#""action":"submitted""#), "the audit trail travels with the upload")
        XCTAssertFalse(uploadedForm.contains(#""action":"uploaded""#), "the upload is the server's record, not the client's claim")
        // Its receipt: for its technician and the foremen; another technician is told it does not exist.
        for (user, status) in [("ana", "200"), ("fiona", "200"), ("bob", "404")] {
            let receipt = try sandbox.curl(["-H", "Authorization: Bearer \(try sandbox.apiToken(user))"], path: "/api/v1/submissions/\(id)")
            XCTAssertTrue(receipt.hasPrefix("HTTP/1.1 \(status)"), "\(user): \(receipt)")
        }

        // A technician may not upload.
        _ = try completedForm(sandbox, name: "hall-c")
        let technician = try sandbox.run(["upload", "hall-c"], as: "ana")
        XCTAssertTrue(technician.stderr.contains("this command is for foremen"), technician.stderr)

        server.kill9()
        // Offline: the cache is listed with its age, and the exit status says the sync failed
        // (75: try again later) unless --offline was asked.
        let offline = try sandbox.run(["templates"])
        XCTAssertEqual(offline.status, 75, offline.output)
        XCTAssertTrue(offline.stderr.contains("offline") && offline.stderr.contains("listing the template cache"), offline.stderr)
        XCTAssertTrue(offline.stdout.contains("pump-inspection"), offline.stdout)
        let asked = try sandbox.run(["templates", "--offline"])
        XCTAssertEqual(asked.status, 0, asked.output)
        XCTAssertTrue(asked.stdout.contains("pump-inspection"), asked.stdout)
        let json = try sandbox.run(["templates", "--json"])
        XCTAssertEqual(json.status, 75, json.output)
        XCTAssertTrue(json.stdout.contains(#""online" : false"#), json.stdout)
        let failed = try sandbox.run(["upload", "ana/hall-c"], as: "fiona")
        XCTAssertEqual(failed.status, 75, "unreachable: try again later — \(failed.output)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("hall-c", in: "CompletedMIs").path))
    }

    /// An upload that did not happen — the server down (75), then refused (422: simulated
    /// answers) — is not in the form's history and changes no byte of it; the one that does
    /// happen is recorded by the server: its receipt and the office's history name the foreman.
    func testAFailedOrRefusedUploadIsNotRecordedAsAnUpload() throws {
        let sandbox = try Sandbox()
        try prepare(sandbox)
        var server = try RunningServer(sandbox)
        let name = try completedForm(sandbox, name: "Pump P-101 north")
        try sandbox.ensureLoggedIn("fiona")
        let formFile = sandbox.formFolder(name, in: "CompletedMIs").appendingPathComponent("form.json")
        let before = try Data(contentsOf: formFile)
        server.kill9()

        let down = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(down.status, 75, down.output)
        XCTAssertEqual(try Data(contentsOf: formFile), before, "a failed attempt writes nothing")
        let history = try sandbox.run(["review", "ana/\(name)", "--history"], as: "fiona")
        XCTAssertEqual(history.status, 0, history.output)
        XCTAssertTrue(history.stdout.contains("submitted by ana"), history.stdout)
        XCTAssertFalse(history.stdout.contains("uploaded by"), history.stdout)

        server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["simulate", "extinguisher-check", "--count", "1", "--seed", "5", "--submit"]).status, 0)
        let simulated = sandbox.formFolder("sim-5-1", in: "CompletedMIs").appendingPathComponent("form.json")
        let simulatedBefore = try Data(contentsOf: simulated)
        let refused = try sandbox.run(["upload", "ana/sim-5-1"], as: "fiona")
        XCTAssertEqual(refused.status, 69, refused.output)
        XCTAssertTrue(refused.stderr.contains("simulated"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: simulated), simulatedBefore, "a refused attempt writes nothing")
        let refusedHistory = try sandbox.run(["review", "ana/sim-5-1", "--history"], as: "fiona")
        XCTAssertEqual(refusedHistory.status, 0, refusedHistory.output)
        XCTAssertFalse(refusedHistory.stdout.contains("uploaded by"), refusedHistory.stdout)

        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        let uploaded = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(uploaded.status, 0, uploaded.output)
        let receipt = try sandbox.curl(["-H", "Authorization: Bearer \(try sandbox.apiToken("fiona"))"], path: "/api/v1/submissions/\(id)")
        XCTAssertTrue(receipt.hasPrefix("HTTP/1.1 200"), receipt)
        XCTAssertTrue(receipt.contains(#""uploadedBy":"fiona""#), receipt)
        withExtendedLifetime(server) {}
    }

    func testIdenticalRetryConflictAndTooLarge() throws {
        let sandbox = try Sandbox(server: .init(maxUploadBytes: 4 << 20))
        try prepare(sandbox)
        var server = try RunningServer(sandbox)
        let name = try completedForm(sandbox, name: "retry")
        try sandbox.ensureLoggedIn("fiona")
        server.kill9()
        // A first attempt while the server is down changes nothing and keeps the form: every
        // attempt sends the very same bytes.
        XCTAssertEqual(try sandbox.run(["upload", "ana/retry"], as: "fiona").status, 75)
        let folder = sandbox.formFolder(name, in: "CompletedMIs")
        let copy = sandbox.root.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: folder, to: copy)
        server = try RunningServer(sandbox)
        let first = try sandbox.run(["upload", "ana/retry"], as: "fiona")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertFalse(first.stdout.contains("already on the server"), first.stdout)
        // The answer was lost: the same bytes again are recognised, not stored twice.
        try FileManager.default.copyItem(at: copy, to: folder)
        let identical = try sandbox.run(["upload", "ana/retry"], as: "fiona")
        XCTAssertEqual(identical.status, 0, identical.output)
        XCTAssertTrue(identical.stdout.contains("already on the server"), identical.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data/submissions").path).count, 1)
        let formFile = folder.appendingPathComponent("form.json")
        var text: String
        // Different content under the same id: 409, kept.
        try FileManager.default.copyItem(at: copy, to: folder)
        text = try String(contentsOf: formFile, encoding: .utf8).replacingOccurrences(of: "Hall B", with: "Hall Z")
        try Data(text.utf8).write(to: formFile)
        let conflict = try sandbox.run(["upload", "ana/retry"], as: "fiona")
        XCTAssertEqual(conflict.status, 69, "a conflict is refused — \(conflict.output)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path))
        XCTAssertTrue(conflict.stderr.contains("was not uploaded and is kept"), conflict.stderr)
        // Over the server's limit: 413 with the limit named, kept.
        let big = try completedForm(sandbox, name: "big", mediaBytes: 6 << 20)
        let tooLarge = try sandbox.run(["upload", "ana/\(big)"], as: "fiona")
        XCTAssertEqual(tooLarge.status, 69, "too large is refused — \(tooLarge.output)")
        XCTAssertTrue(tooLarge.stderr.contains("\(4 << 20)"), tooLarge.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(big, in: "CompletedMIs").path))
        withExtendedLifetime(server) {}
    }

    func testForgedTokenAndServerKilledMidUploadThenRetriedOnce() throws {
        let sandbox = try Sandbox()
        try prepare(sandbox)
        var server = try RunningServer(sandbox)
        let name = try completedForm(sandbox, name: "heavy", mediaBytes: 300 << 20)
        try sandbox.ensureLoggedIn("fiona")

        // A forged token is refused with a clear message and nothing is deleted.
        let sessionFile = sandbox.stateFolder(for: "fiona").appendingPathComponent("mi/session.json")
        let original = try Data(contentsOf: sessionFile)
        var session = try XCTUnwrap(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        session["serverToken"] = "eyJzdWIiOiJmaW9uYSJ9.Zm9yZ2Vk"
        try JSONSerialization.data(withJSONObject: session).write(to: sessionFile)
        let forged = try sandbox.run(["upload", "ana/heavy"], as: "fiona")
        XCTAssertNotEqual(forged.status, 0)
        XCTAssertTrue(forged.stderr.contains("run `mi login`"), forged.stderr)
        try original.write(to: sessionFile)

        // SIGKILL the server in the middle of a 300 MiB upload.
        let upload = try sandbox.start(["upload", "ana/heavy"], as: "fiona")
        usleep(400_000)
        server.kill9()
        upload.waitUntilExit()
        XCTAssertNotEqual(upload.terminationStatus, 0, "the upload cannot have succeeded")
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))

        server = try RunningServer(sandbox)
        let retry = try sandbox.run(["upload", "ana/heavy"], as: "fiona")
        XCTAssertEqual(retry.status, 0, retry.output)
        let submissions = try FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data/submissions").path)
        XCTAssertEqual(submissions.count, 1, "exactly one submission: \(submissions)")
        // Only the running server's (empty) receiving folder and its lock; the killed one's went.
        let incomingFolder = sandbox.root.appendingPathComponent("server-data/incoming")
        let incoming = Files.names(in: incomingFolder)
        XCTAssertEqual(incoming.count, 2, "\(incoming)")
        XCTAssertEqual(incoming.filter { $0.hasSuffix(".lock") }.count, 1, "\(incoming)")
        XCTAssertEqual(Files.uploadsBeingReceived(in: incomingFolder), [], "no partial upload is left")
        withExtendedLifetime(server) {}
    }
}
