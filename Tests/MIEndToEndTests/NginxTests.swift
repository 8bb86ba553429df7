import Foundation
import TestSupport
import XCTest

/// Two real mi-servers behind Debian's nginx with the configuration the README recommends
/// (scripts/nginx-test.sh): nginx takes turns between them, and an upload streams through it.
/// The servers keep separate data folders here (SQLite) but share one `Server.SigningKeyFile`,
/// so a token either server signed is good at the other.
final class NginxTests: XCTestCase {
    func testHealthAlternatesBetweenTwoServersAndAnUploadThroughNginxIsStored() throws {
        let ports = [Sandbox.freePort(), Sandbox.freePort()]
        let nginx = try NginxServer.start(upstreams: ports)
        defer { nginx.stop() }
        let scratch = try TemporaryDirectory(prefix: "mi-nginx")
        // Every connection comes from nginx: the README's advice on the per-address limit.
        let keys = """
            <key>SigningKeyFile</key><string>\(scratch.path("signing.key").path)</string>
            <key>MaxConnectionsPerAddress</key><integer>1000</integer>
            """
        // `mi` talks to nginx; each sandbox's mi-server listens on its own port behind it.
        let client = try Sandbox(server: .init(port: nginx.port, listenPort: ports[0], extraKeys: keys))
        let second = try Sandbox(server: .init(port: nginx.port, listenPort: ports[1], extraKeys: keys))
        try ServerTests.prepare(client)
        try ServerTests.prepare(second)
        let first = try RunningServer(client)
        let other = try RunningServer(second)
        let logs = [first.log, other.log]

        // Four health checks, each on a new connection to nginx: two reach each server, in turn.
        for _ in 0..<4 {
            let health = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/curl"),
                                            ["-sS", "--fail", "http://127.0.0.1:\(nginx.port)/health"])
            XCTAssertEqual(health, #"{"status":"ok"}"#)
        }
        XCTAssertEqual(try logs.map { try Self.count("GET /health", in: $0) }, [2, 2],
                       "each mi-server answered two health checks")
        let answered = try Self.upstreams(in: nginx.accessLog, request: "GET /health")
        XCTAssertEqual(answered.count, 4, "nginx logged every health check")
        XCTAssertEqual(Set(answered), Set(ports.map { "127.0.0.1:\($0)" }), "both servers answered")
        XCTAssertTrue(zip(answered, answered.dropFirst()).allSatisfy { $0 != $1 }, "turns alternate: \(answered)")

        // A form with a 1 MiB video, uploaded through nginx, is stored by the server that took it.
        try client.ensureLoggedIn("fiona")
        let name = try ServerTests.completedForm(client, name: "through-nginx", mediaBytes: 1 << 20)
        // The server names a submission by the form's id in lower case.
        let formID = try XCTUnwrap(try client.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        let upload = try client.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.stdout.contains("receipt verified"), upload.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: client.formFolder(name, in: "CompletedMIs").path),
                       "the local copy goes once the receipt matches")
        let stored = [client, second].map { $0.root.appendingPathComponent("server-data/submissions/\(formID)") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        XCTAssertEqual(stored.count, 1, "one server stored the submission")
        let folder = try XCTUnwrap(stored.first)
        let video = try XCTUnwrap(Files.names(in: folder).first { $0.hasSuffix(".mp4") }, "\(Files.names(in: folder))")
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent(video)), Data(repeating: 9, count: 1 << 20))
        let puts = try String(contentsOf: nginx.accessLog, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"PUT ") && $0.contains(formID) }
        XCTAssertEqual(puts.count, 1, "one PUT carried the form: \(puts)")
        XCTAssertTrue(puts.first?.contains("\" 201 ") ?? false, "stored at once: \(puts)")
    }

    /// How many lines of `log` contain `text`.
    private static func count(_ text: String, in log: URL) throws -> Int {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.contains(text) }.count
    }

    /// The `upstream=` of every line of nginx's access log for `request` ("METHOD PATH"), in order.
    private static func upstreams(in log: URL, request: String) throws -> [String] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"\(request) ") }
            .compactMap { line in line.split(separator: " ").first { $0.hasPrefix("upstream=") }?.dropFirst("upstream=".count) }
            .map(String.init)
    }
}
