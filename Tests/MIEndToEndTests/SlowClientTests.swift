import Foundation
import XCTest

/// The built mi-server with 2-second limits against clients that trickle one byte at a time
/// (`RawClient`).
final class SlowClientTests: XCTestCase {
    func testTricklingClientsAreCutWithinTheLimitsWhileOthersAreServed() throws {
        let limits = "<key>HeaderTimeoutSeconds</key><integer>2</integer><key>BodyTimeoutSeconds</key><integer>2</integer>"
            + "<key>MinimumBytesPerSecond</key><integer>100</integer>"
        let sandbox = try Sandbox(server: Sandbox.ServerSettings(extraKeys: limits))
        try FileManager.default.createDirectory(at: sandbox.root.appendingPathComponent("server-templates"),
                                                withIntermediateDirectories: true)
        let server = try RunningServer(sandbox)
        let port = String(sandbox.server.port)
        let headers = ("", "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + String(repeating: "a", count: 60))
        let body = ("POST /api/v1/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n",
                    String(repeating: " ", count: 60))
        let slow = [headers, body].map { (atOnce, trickled) in
            Self.launch(RawClient.arguments(port: sandbox.server.port, atOnce, trickled: trickled))
        }
        // While the tricklers are held, others are served.
        for _ in 0..<5 {
            let health = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "-m", "2", "http://127.0.0.1:\(port)/health"])
            XCTAssertEqual(health.stdout, #"{"status":"ok"}"#, health.output)
            usleep(300_000)
        }
        let outputs = slow.map { Self.finish($0) }
        for (output, expected) in zip(outputs, ["the request's headers did not arrive within 2 s", "slower than the server's minimum of 100 bytes/s"]) {
            let seconds = Double(output.prefix { $0 != "\n" }) ?? 99
            XCTAssertTrue(output.contains("408 Request Timeout"), output)
            XCTAssertTrue(output.contains(expected), output)
            XCTAssertLessThan(seconds, 4.5, "cut off within the limit (the whole would take 12 s+): \(output)")
        }
        let log = try String(contentsOf: server.log, encoding: .utf8)
        XCTAssertEqual(log.components(separatedBy: "[MIServer] client error: ").count - 1, 2, log)
    }

    private static func launch(_ arguments: [String]) -> (Process, Pipe) {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        try? process.run()
        return (process, pipe)
    }

    private static func finish(_ launched: (Process, Pipe)) -> String {
        let data = launched.1.fileHandleForReading.readDataToEndOfFile()
        launched.0.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
