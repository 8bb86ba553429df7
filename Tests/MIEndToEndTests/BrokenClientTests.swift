import Foundation
import XCTest

extension Sandbox {
    /// A session token of `user` from the running mi-server's API (curl, not `mi`).
    func apiToken(_ user: String) throws -> String {
        let credentials = try JSONSerialization.data(withJSONObject: ["user": user, "password": TestDirectory.password(for: user)])
        let login = try Self.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                     ["-sS", "-X", "POST", "-H", "Content-Type: application/json",
                                      "--data-binary", String(decoding: credentials, as: UTF8.self),
                                      "http://127.0.0.1:\(server.port)/api/v1/session"])
        let session = try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(session?["token"] as? String, login.output)
    }

    /// `curl -i` against the running mi-server: the status line, headers and body.
    func curl(_ arguments: [String], path: String) throws -> String {
        try Self.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                         ["-sS", "-i", "-m", "5"] + arguments + ["http://127.0.0.1:\(server.port)\(path)"]).output
    }
}

/// The built mi-server against requests no well-behaved client sends: each gets its status with
/// the JSON error body, and the log blames the client, never the server.
final class BrokenClientTests: XCTestCase {
    /// Sends argv[2] on a fresh connection, half-closes it when argv[3] is "half", and prints
    /// everything the server answers until it closes.
    static let rawClient = #"""
        import socket, sys
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        s.settimeout(5)
        s.sendall(sys.argv[2].encode())
        if sys.argv[3] == "half":
            s.shutdown(socket.SHUT_WR)
        answer = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        print(answer.decode(errors="replace"))
        """#

    func raw(_ sandbox: Sandbox, _ request: String, halfClose: Bool = false) throws -> String {
        try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"),
                            ["python3", "-c", Self.rawClient, String(sandbox.server.port), request, halfClose ? "half" : "no"]).output
    }

    func testBrokenRequestsGetTheirStatusWithTheErrorBodyAndTheBlame() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(at: sandbox.root.appendingPathComponent("server-templates"),
                                                withIntermediateDirectories: true)
        let server = try RunningServer(sandbox)
        let session = "POST /api/v1/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"

        for framing in ["Content-Length: -1\r\n", "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n"] {
            let answer = try raw(sandbox, session + framing + "\r\n{}")
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 Bad Request"), answer)
            XCTAssertTrue(answer.contains(#"{"error":{"message":"the request is not valid HTTP/1.1"#), answer)
        }
        let cutShort = try raw(sandbox, session + "Content-Length: 100\r\n\r\n{\"user\":", halfClose: true)
        XCTAssertTrue(cutShort.hasPrefix("HTTP/1.1 400 Bad Request"), cutShort)
        XCTAssertTrue(cutShort.contains("the request ended before its body was complete — send it again"), cutShort)

        let big = sandbox.root.appendingPathComponent("big.json")
        try Data(repeating: 0x20, count: 70 * 1024).write(to: big)
        let tooLarge = try sandbox.curl(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@\(big.path)"],
                                        path: "/api/v1/session")
        XCTAssertTrue(tooLarge.hasPrefix("HTTP/1.1 413"), tooLarge)
        XCTAssertTrue(tooLarge.contains(#"{"error":{"message":"the request body is too large — send less"}}"#), tooLarge)

        let trace = try sandbox.curl(["-X", "TRACE"], path: "/health")
        XCTAssertTrue(trace.hasPrefix("HTTP/1.1 405"), trace)
        XCTAssertTrue(trace.lowercased().contains("allow: get\r\n"), trace)
        let token = try sandbox.apiToken("fiona")
        let put = try sandbox.curl(["-X", "PUT", "-H", "Authorization: Bearer \(token)", "--data-binary", "{}"], path: "/api/v1/templates")
        XCTAssertTrue(put.hasPrefix("HTTP/1.1 405"), put)
        XCTAssertTrue(put.lowercased().contains("allow: get\r\n"), put)
        XCTAssertTrue(put.contains(#"{"error":{"message":"PUT is not allowed on /api/v1/templates"#), put)

        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertEqual(log.components(separatedBy: "[MIServer] client error: ").count - 1, 3, log)
        XCTAssertFalse(log.contains("request failed"), log)
        XCTAssertFalse(log.contains("unexpected time"), log)
    }
}
