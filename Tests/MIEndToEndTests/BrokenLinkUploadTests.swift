import Foundation
import XCTest

/// The proxy of Resources/mi_test_proxy.py between `mi` and the real mi-server.
final class RunningProxy {
    let process = Process()
    let log: URL
    let port: Int
    private let input = Pipe()

    init(target: Int, dropFinalResponses: Int = 0, corruptPatches: Int = 0, padReceipts: Int = 0, stubReturned: URL? = nil) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("mi-proxy-\(UUID().uuidString).jsonl")
        guard let script = Bundle.module.url(forResource: "mi_test_proxy", withExtension: "py") else {
            throw TestDirectoryError("mi_test_proxy.py is not among the test resources")
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, "--target", "\(target)", "--drop-final-responses", "\(dropFinalResponses)",
                             "--corrupt-patches", "\(corruptPatches)", "--pad-receipts", "\(padReceipts)", "--log", log.path]
            + (stubReturned.map { ["--stub-returned", $0.path] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestDirectoryError("the proxy did not start: \(line)")
        }
        self.port = port
    }

    /// The logged events of one kind.
    func events(_ kind: String) -> [[String: Any]] {
        guard let data = try? Data(contentsOf: log) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }.filter { $0["event"] as? String == kind }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}

/// `mi upload` over links that break: answers lost, transfers killed, bytes damaged — against the
/// real mi-server, with resumable uploads for media over 1 MiB.
final class BrokenLinkUploadTests: XCTestCase {
    /// Media over 1 MiB go resumably.
    private static let threshold = "<key>ResumableThresholdBytes</key><integer>\(1 << 20)</integer>"

    private func json(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.output)
    }

    private func firstForm(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap((try json(result)["forms"] as? [[String: Any]])?.first, result.output)
    }

    private func submissions(_ sandbox: Sandbox) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data/submissions").path)) ?? []
    }

    private func sha256(_ url: URL) throws -> String {
        let result = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/sha256sum"), [url.path])
        return String(result.stdout.prefix(64))
    }

    /// mi-server on its own port, a proxy in front of it, and a sandbox whose `mi` uses the proxy.
    private func throughProxy(dropFinalResponses: Int = 0, corruptPatches: Int = 0,
                              padReceipts: Int = 0) throws -> (Sandbox, RunningServer, RunningProxy) {
        let serverPort = Sandbox.freePort()
        var settings = Sandbox.ServerSettings()
        settings.listenPort = serverPort
        settings.extraKeys = Self.threshold
        // The proxy picks its own port; the sandbox's client port is set to it.
        let proxy = try RunningProxy(target: serverPort, dropFinalResponses: dropFinalResponses,
                                     corruptPatches: corruptPatches, padReceipts: padReceipts)
        settings.port = proxy.port
        let sandbox = try Sandbox(server: settings)
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        return (sandbox, server, proxy)
    }

    /// A receipt must list exactly the parts sent: one that lists a part `mi` never sent is not
    /// the receipt of this upload, and the local copy stays (it was deleted before).
    func testAReceiptListingAPartNeverSentKeepsTheLocalCopy() throws {
        let (sandbox, server, proxy) = try throughProxy(padReceipts: 1)
        let name = try ServerTests.completedForm(sandbox, name: "padded", mediaBytes: 0)
        let padded = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(proxy.events("padded").count, 1)
        XCTAssertEqual(padded.status, 69, padded.output)
        XCTAssertTrue(padded.stderr.contains("the server's receipt lists Qid9(1).jpg, which was not sent"), padded.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path),
                      "kept: the receipt does not prove the upload")
        // The true receipt (the server already holds the form) completes it.
        let again = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        withExtendedLifetime(server) {}
    }

    func testIdenticalRetryAfterLostAnswersSendsNoBody() throws {
        let (sandbox, server, proxy) = try throughProxy(dropFinalResponses: 5)
        let name = try ServerTests.completedForm(sandbox, name: "lost", mediaBytes: 0)
        // Every answer of this run is lost (four tries): the server stored the form on the first.
        let lost = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(lost.status, 75, "no answer came: try again later — \(lost.output)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        XCTAssertEqual(submissions(sandbox).count, 1, "the first try was stored")
        XCTAssertEqual(proxy.events("dropped").count, 4)

        // The next run: its manifest is whole, the server answers before the body.
        let retry = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(retry.status, 0, retry.output)
        let form = try firstForm(retry)
        XCTAssertEqual(form["uploaded"] as? Bool, true)
        XCTAssertEqual(form["created"] as? Bool, false)
        XCTAssertEqual(form["bytesSent"] as? Int, 0, "no body byte was sent again")
        XCTAssertEqual(form["bytesResumed"] as? Int, 0)
        XCTAssertNotNil(form["seconds"] as? Double)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        XCTAssertEqual(submissions(sandbox).count, 1)
        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertTrue(log.contains("answered before the body"), log)
    }

    func testAnswerLostOnceIsRetriedInTheSameRunWithoutASecondBody() throws {
        let (sandbox, server, proxy) = try throughProxy(dropFinalResponses: 1)
        let name = try ServerTests.completedForm(sandbox, name: "once", mediaBytes: 0)
        let result = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(result.status, 0, result.output)
        let form = try firstForm(result)
        let gauge = try FileManager.default.attributesOfItem(
            atPath: sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path)[.size] as? Int ?? 0
        let sent = try XCTUnwrap(form["bytesSent"] as? Int)
        XCTAssertGreaterThan(sent, gauge, "the body went once")
        XCTAssertLessThan(sent, gauge + 64 << 10, "and only once")
        XCTAssertEqual(proxy.events("dropped").count, 1)
        XCTAssertTrue(try String(contentsOf: server.log, encoding: .utf8).contains("answered before the body"))
    }

    func testLostAnswerAfterAResumableUploadSendsNothingAgain() throws {
        let (sandbox, server, proxy) = try throughProxy(dropFinalResponses: 4)
        let name = try ServerTests.completedForm(sandbox, name: "video", mediaBytes: 3 << 20)
        let lost = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(lost.status, 75, lost.output)
        XCTAssertEqual(proxy.events("dropped").count, 4)
        XCTAssertEqual(submissions(sandbox).count, 1, "the server took the video into the submission")

        let retry = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(retry.status, 0, retry.output)
        let form = try firstForm(retry)
        XCTAssertEqual(form["created"] as? Bool, false)
        XCTAssertEqual(form["bytesSent"] as? Int, 0, "neither the video nor the form went again")
        let patches = proxy.events("request").filter { ($0["line"] as? String)?.hasPrefix("PATCH ") ?? false }
        XCTAssertEqual(patches.count, 1, "one PATCH, in the first run: \(patches)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        withExtendedLifetime(server) {}
    }

    func testChangedFormAfterALostAnswerIs409BeforeTheBody() throws {
        let (sandbox, server, proxy) = try throughProxy(dropFinalResponses: 4)
        let name = try ServerTests.completedForm(sandbox, name: "changed", mediaBytes: 0)
        XCTAssertEqual(try sandbox.run(["upload", "ana/\(name)"], as: "fiona").status, 75)
        XCTAssertEqual(proxy.events("dropped").count, 4)
        // The foreman comments on the form the server already holds.
        let comment = try sandbox.run(["comment", "ana/\(name)", "seal", "Checked again"], as: "fiona")
        XCTAssertEqual(comment.status, 0, comment.output)
        let conflict = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(conflict.status, 69, conflict.output)
        XCTAssertTrue(conflict.stderr.contains("different content"), conflict.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertTrue(log.contains("refused before the body"), log)
    }

    func testKilledUploadResumesFromTheServersOffset() throws {
        let sandbox = try Sandbox(server: Sandbox.ServerSettings(extraKeys: Self.threshold))
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let size = 192 << 20
        let name = try ServerTests.completedForm(sandbox, name: "video", mediaBytes: size)
        try sandbox.ensureLoggedIn("fiona")
        let uploads = sandbox.root.appendingPathComponent("server-data/uploads")
        let upload = try sandbox.start(["upload", "ana/\(name)"], as: "fiona")
        // Kill mi once the server holds part of the video.
        let deadline = Date().addingTimeInterval(60)
        var held = 0
        while Date() < deadline, upload.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []
            held = names.compactMap { try? FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent("\($0)/data").path)[.size] as? Int }.max() ?? 0
            if held >= 100 << 20 { break }
            usleep(2_000)
        }
        XCTAssertTrue(upload.isRunning, "mi was still sending (held \(held) bytes)")
        kill(upload.processIdentifier, SIGKILL)
        upload.waitUntilExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        let media = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder(name, in: "CompletedMIs").path)
            .first { $0.hasSuffix(".mp4") })
        let local = try sha256(sandbox.formFolder(name, in: "CompletedMIs").appendingPathComponent(media))

        let again = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(again.status, 0, again.output)
        let form = try firstForm(again)
        let resumed = try XCTUnwrap(form["bytesResumed"] as? Int)
        let sent = try XCTUnwrap(form["bytesSent"] as? Int)
        // Chunks grow from 4 MiB to 32 MiB; the one cut off is dropped (its checksum cannot be checked).
        XCTAssertGreaterThanOrEqual(resumed, 36 << 20, "the run went on from the server's offset")
        XCTAssertLessThan(sent, size - resumed + (1 << 20), "only what the server lacked was sent: \(sent)")
        let receipt = try XCTUnwrap(form["receipt"] as? [String: Any])
        let parts = try XCTUnwrap(receipt["parts"] as? [[String: Any]])
        XCTAssertEqual(parts.first { $0["name"] as? String == media }?["sha256"] as? String, local)
        let stored = try sha256(sandbox.root.appendingPathComponent("server-data/submissions/\(receipt["id"] as? String ?? "")/\(media)"))
        XCTAssertEqual(stored, local)
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? [], [], "the finished upload moved into the submission")
        withExtendedLifetime(server) {}
    }

    func testDamagedChunkIs460AndSentAgain() throws {
        let (sandbox, server, proxy) = try throughProxy(corruptPatches: 1)
        let name = try ServerTests.completedForm(sandbox, name: "damaged", mediaBytes: 3 << 20)
        let result = try sandbox.run(["upload", "ana/\(name)", "--json"], as: "fiona")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(proxy.events("corrupted").count, 1)
        let patches = proxy.events("request").filter { ($0["line"] as? String)?.hasPrefix("PATCH ") ?? false }
        XCTAssertEqual(patches.count, 2, "the damaged chunk was sent once more: \(patches)")
        let form = try firstForm(result)
        XCTAssertEqual(form["uploaded"] as? Bool, true)
        withExtendedLifetime(server) {}
    }
}
