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

/// A client on a raw socket, in Python so that a held connection is not the test's own process.
enum RawClient {
    /// Sends `atOnce`, then `trickled` one byte every 0.2 s until the server answers or closes,
    /// half-closes when asked, and prints the seconds taken, a newline and the whole answer.
    static let script = #"""
        import socket, sys, time
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        start = time.time()
        s.sendall(sys.argv[2].encode())
        s.setblocking(False)
        answer = b""
        for byte in sys.argv[3].encode():
            try:
                s.send(bytes([byte]))
            except OSError:
                break
            time.sleep(0.2)
            try:
                chunk = s.recv(65536)
                answer += chunk
                if answer or not chunk:
                    break
            except BlockingIOError:
                pass
        if sys.argv[4] == "half":
            s.shutdown(socket.SHUT_WR)
        s.setblocking(True)
        s.settimeout(5)
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        print("%.1f" % (time.time() - start))
        print(answer.decode(errors="replace"))
        """#

    static func arguments(port: Int, _ atOnce: String, trickled: String = "", halfClose: Bool = false) -> [String] {
        ["python3", "-c", script, String(port), atOnce, trickled, halfClose ? "half" : "no"]
    }
}

/// The built mi-server against requests no well-behaved client sends: each gets its status with
/// the JSON error body, and the log blames the client, never the server.
final class BrokenClientTests: XCTestCase {
    func raw(_ sandbox: Sandbox, _ request: String, halfClose: Bool = false) throws -> String {
        let output = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"),
                                         RawClient.arguments(port: sandbox.server.port, request, halfClose: halfClose)).output
        return String(output.drop { $0 != "\n" }.dropFirst())
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
        XCTAssertTrue(trace.lowercased().contains("allow: get, head\r\n"), trace)
        let token = try sandbox.apiToken("fiona")
        let put = try sandbox.curl(["-X", "PUT", "-H", "Authorization: Bearer \(token)", "--data-binary", "{}"], path: "/api/v1/templates")
        XCTAssertTrue(put.hasPrefix("HTTP/1.1 405"), put)
        XCTAssertTrue(put.lowercased().contains("allow: get, head\r\n"), put)
        XCTAssertTrue(put.contains(#"{"error":{"message":"PUT is not allowed on /api/v1/templates"#), put)

        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertEqual(log.components(separatedBy: "[MIServer] client error: ").count - 1, 3, log)
        XCTAssertFalse(log.contains("request failed"), log)
        XCTAssertFalse(log.contains("unexpected time"), log)
    }
}
