import Foundation
import TestSupport
import XCTest

/// mi-server over HTTPS with a certificate from a throwaway CA, and `mi` trusting only that CA
/// through `Server.CAFile`: the everyday commands work; a certificate `mi` must not trust is
/// refused with a clear message and nothing deleted; SIGHUP swaps the certificate.
final class HTTPSTests: XCTestCase {
    /// A sandbox whose mi-server serves `issued` and whose `mi` trusts `ca` alone.
    private func sandbox(ca: ThrowawayCA, serving issued: ThrowawayCA.Issued) throws -> Sandbox {
        let keys = """
            <key>CAFile</key><string>\(ca.certificate.path)</string>
            <key>TLSCertificateFile</key><string>\(issued.certificate.path)</string>
            <key>TLSKeyFile</key><string>\(issued.key.path)</string>
            """
        let sandbox = try Sandbox(server: .init(scheme: "https", extraKeys: keys))
        try ServerTests.prepare(sandbox)
        return sandbox
    }

    /// Puts `replacement`'s files where the server's certificate and key are, as a renewal does.
    private func install(_ replacement: ThrowawayCA.Issued, over served: ThrowawayCA.Issued, keyToo: Bool = true) throws {
        try Data(contentsOf: replacement.certificate).write(to: served.certificate, options: .atomic)
        if keyToo { try Data(contentsOf: replacement.key).write(to: served.key, options: .atomic) }
    }

    /// The SHA-256 fingerprint of the certificate mi-server presents to a new connection.
    private func servedFingerprint(_ sandbox: Sandbox) throws -> String {
        let handshake = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/openssl"),
                                            ["s_client", "-connect", "127.0.0.1:\(sandbox.server.port)",
                                             "-servername", "127.0.0.1"], stdin: "")
        return try ThrowawayCA.openssl(["x509", "-noout", "-fingerprint", "-sha256"], stdin: handshake.stdout)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends SIGHUP and waits until new connections are given `expected` (or 10 s pass).
    private func reload(_ server: RunningServer, _ sandbox: Sandbox, expecting expected: URL) throws {
        let fingerprint = try ThrowawayCA.fingerprint(of: expected)
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try servedFingerprint(sandbox) != fingerprint { usleep(100_000) }
        XCTAssertEqual(try servedFingerprint(sandbox), fingerprint, "the new certificate is served after SIGHUP")
        XCTAssertTrue(server.process.isRunning, "SIGHUP reloads, it does not stop mi-server")
    }

    func testLoginTemplatesAndUploadOverHTTPSAndSIGHUPSwapsTheCertificate() throws {
        let scratch = try TemporaryDirectory(prefix: "mi-https")
        let ca = try ThrowawayCA(name: "office", in: scratch.url)
        let served = try ca.issue("server")
        let sandbox = try sandbox(ca: ca, serving: served)
        let server = try RunningServer(sandbox)
        XCTAssertTrue(try String(contentsOf: server.log, encoding: .utf8)
            .contains("listening on https://127.0.0.1:\(sandbox.server.port)"))

        let login = try sandbox.run(["login", "--user", "fiona", "--password-stdin"], as: nil,
                                    stdin: TestDirectory.password(for: "fiona") + "\n",
                                    environment: sandbox.environment(for: "fiona"))
        XCTAssertEqual(login.status, 0, login.output)
        let name = try ServerTests.completedForm(sandbox, name: "over-tls")
        let upload = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.stdout.contains("receipt verified"), upload.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        XCTAssertEqual(try servedFingerprint(sandbox), try ThrowawayCA.fingerprint(of: served.certificate))

        // A renewal: SIGHUP, and new connections get the new certificate; `mi` goes on working.
        let renewed = try ca.issue("renewed")
        try install(renewed, over: served)
        try reload(server, sandbox, expecting: renewed.certificate)
        let templates = try sandbox.run(["templates", "--refresh"])
        XCTAssertEqual(templates.status, 0, templates.output)

        // A renewal copied half way (the certificate without its key): logged, the previous one kept.
        let half = try ca.issue("half")
        try install(half, over: served, keyToo: false)
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !(try String(contentsOf: server.log, encoding: .utf8)).contains("not reloaded") {
            usleep(100_000)
        }
        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertTrue(log.contains("HTTPS certificate not reloaded, still serving the previous one")
                      && log.contains("is not the private key of the certificate"), log)
        XCTAssertEqual(try servedFingerprint(sandbox), try ThrowawayCA.fingerprint(of: renewed.certificate))
        XCTAssertEqual(try sandbox.run(["templates", "--refresh"]).status, 0)
    }

    func testAnotherCAsExpiredAndWrongHostCertificatesAreRefusedAndNothingIsDeleted() throws {
        let scratch = try TemporaryDirectory(prefix: "mi-https")
        let ca = try ThrowawayCA(name: "office", in: scratch.url)
        let stranger = try ThrowawayCA(name: "stranger", in: scratch.url.appendingPathComponent("stranger"))
        let good = try ca.issue("good")
        let served = try ca.issue("server")
        let sandbox = try sandbox(ca: ca, serving: served)
        let server = try RunningServer(sandbox)
        try sandbox.ensureLoggedIn("fiona")
        let name = try ServerTests.completedForm(sandbox, name: "kept")
        let folder = sandbox.formFolder(name, in: "CompletedMIs")

        let cases: [(String, ThrowawayCA.Issued, String)] = [
            ("another CA", try stranger.issue("stranger-server"), "unable to get local issuer certificate"),
            ("expired", try ca.issue("expired", expired: true), "certificate has expired"),
            ("wrong host", try ca.issue("elsewhere", hosts: ["mi.example.com"]), "127.0.0.1"),
        ]
        for (what, issued, detail) in cases {
            try install(issued, over: served)
            try reload(server, sandbox, expecting: issued.certificate)
            let upload = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
            XCTAssertEqual(upload.status, 78, "\(what): TLS failures are configuration errors — \(upload.output)")
            XCTAssertTrue(upload.stderr.contains("the TLS certificate of 127.0.0.1 is not trusted")
                          && upload.stderr.contains("Server.CAFile") && upload.stderr.contains(detail),
                          "\(what): \(upload.stderr)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("form.json").path),
                          "\(what): the form is kept")
            // `mi login` checks the password with the directory and works on offline, saying why
            // the server was not used: no token is taken from a server it cannot trust.
            let login = try sandbox.run(["login", "--user", "bob", "--password-stdin", "--json"], as: nil,
                                        stdin: TestDirectory.password(for: "bob") + "\n")
            XCTAssertEqual(login.status, 0, "\(what): \(login.output)")
            XCTAssertTrue(login.stderr.contains("working offline: the TLS certificate of 127.0.0.1 is not trusted"),
                          "\(what): \(login.stderr)")
            let loggedIn = try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any]
            XCTAssertEqual(loggedIn?["server"] as? Bool, false, "\(what): \(login.stdout)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(
            atPath: sandbox.root.appendingPathComponent("server-data/submissions").path), [], "nothing reached the server")

        // Trusted again: the kept form goes up.
        try install(good, over: served)
        try reload(server, sandbox, expecting: good.certificate)
        let upload = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path))
    }

    func testMismatchedOrUnreadableCertificateStopsStartWithExit78() throws {
        let scratch = try TemporaryDirectory(prefix: "mi-https")
        let ca = try ThrowawayCA(name: "office", in: scratch.url)
        let served = try ca.issue("server")
        let other = try ca.issue("other")
        try install(other, over: served, keyToo: false)
        let sandbox = try sandbox(ca: ca, serving: served)
        let serverBinary = Sandbox.binary.deletingLastPathComponent().appendingPathComponent("mi-server")
        let mismatched = try Sandbox.execute(serverBinary, ["--config", sandbox.config.path], in: sandbox.root)
        XCTAssertEqual(mismatched.status, 78, mismatched.output)
        XCTAssertTrue(mismatched.stderr.contains("mi-server: cannot serve HTTPS: \(served.key.path) is not the private key of the certificate in \(served.certificate.path)"),
                      mismatched.stderr)

        try FileManager.default.removeItem(at: served.key)
        let unreadable = try Sandbox.execute(serverBinary, ["--config", sandbox.config.path], in: sandbox.root)
        XCTAssertEqual(unreadable.status, 78, unreadable.output)
        XCTAssertTrue(unreadable.stderr.contains("\(served.key.path) cannot be read"), unreadable.stderr)
    }

    func testAConnectionOverThePerAddressCapGetsAReadable503OverTLS() throws {
        let scratch = try TemporaryDirectory(prefix: "mi-https")
        let ca = try ThrowawayCA(name: "office", in: scratch.url)
        let served = try ca.issue("server")
        let keys = """
            <key>TLSCertificateFile</key><string>\(served.certificate.path)</string>
            <key>TLSKeyFile</key><string>\(served.key.path)</string>
            <key>MaxConnectionsPerAddress</key><integer>1</integer>
            """
        let sandbox = try Sandbox(server: .init(scheme: "https", extraKeys: keys))
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        // One TLS connection held open by openssl, then a second one from curl.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        holder.arguments = ["s_client", "-quiet", "-connect", "127.0.0.1:\(sandbox.server.port)"]
        let input = Pipe()
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        usleep(500_000)
        let refused = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                          ["-sS", "-i", "-m", "5", "--cacert", ca.certificate.path,
                                           "https://127.0.0.1:\(sandbox.server.port)/health"])
        XCTAssertTrue(refused.stdout.hasPrefix("HTTP/1.1 503"), refused.output)
        XCTAssertTrue(refused.stdout.contains("this address already has 1 open connections"), refused.output)
        withExtendedLifetime(server) {}
    }
}
