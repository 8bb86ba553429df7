import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MIKit
import NIOCore
import NIOHTTP1
@testable import MIServer
import TestSupport
import XCTest

/// Slow, broken and nosy clients against a live server with short limits (2 s), over raw
/// sockets: each is cut off or answered with the API's error body while others are served.
final class ClientLimitTests: XCTestCase {
    static let shortLimits: [ConfigEdit] = [.set("Server.HeaderTimeoutSeconds", 2), .set("Server.BodyTimeoutSeconds", 2)]
    static let sessionHead = "POST /api/v1/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"

    struct Outcome: Sendable {
        var status: Int
        var headers: [String: String]
        var message: String
        var seconds: TimeInterval
    }

    /// Opens a connection, runs `client` on it and reads the answer, timing the whole.
    static func raw(port: Int, _ client: @escaping @Sendable (RawHTTPConnection) -> Void) async throws -> Outcome {
        try await RawHTTPConnection.run {
            let connection = try RawHTTPConnection(port: port)
            let start = Date()
            client(connection)
            let response = try connection.readResponse()
            let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            let message = (json?["error"] as? [String: Any])?["message"] as? String ?? "(no error body: \(String(decoding: response.body, as: UTF8.self)))"
            return Outcome(status: response.status, headers: response.headers, message: message,
                           seconds: Date().timeIntervalSince(start))
        }
    }

    private func assertClientBlamed(_ fixture: ServerFixture, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let messages = fixture.logs.messages
        XCTAssertTrue(messages.contains { $0.hasPrefix("notice: client error: \(text)") }, "\(messages)", file: file, line: line)
        XCTAssertFalse(messages.contains { $0.contains("request failed") }, "\(messages)", file: file, line: line)
    }

    // MARK: - Timeouts and rate

    func testTricklingHeadersAreCutAfterTheHeaderTimeoutWhileOthersAreServed() async throws {
        let fixture = try ServerFixture(Self.shortLimits)
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            async let slow = Self.raw(port: port) { connection in
                // 60 bytes at 5 bytes/s would take 12 s.
                connection.trickle(Data(("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + String(repeating: "a", count: 20)).utf8),
                                   interval: 0.2)
            }
            for _ in 0..<4 {
                try await assertStatus(.ok, await client.get("/health", token: nil))
                try await Task.sleep(for: .milliseconds(300))
            }
            let outcome = try await slow
            XCTAssertEqual(outcome.status, 408, outcome.message)
            XCTAssertTrue(outcome.message.hasPrefix("the request's headers did not arrive within 2 s"), outcome.message)
            XCTAssertGreaterThanOrEqual(outcome.seconds, 1.9)
            XCTAssertLessThan(outcome.seconds, 4)
        }
        assertClientBlamed(fixture, "the request's headers did not arrive within 2 s")
    }

    func testABodyBelowTheMinimumRateIsCutWhileOthersAreServed() async throws {
        let fixture = try ServerFixture(Self.shortLimits + [.set("Server.MinimumBytesPerSecond", 100)])
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            async let slow = Self.raw(port: port) { connection in
                connection.send(Self.sessionHead + "Content-Length: 200\r\n\r\n")
                connection.trickle(Data(repeating: 0x20, count: 200), interval: 0.2)
            }
            try await Task.sleep(for: .milliseconds(500))
            _ = try await client.login("fiona")
            let outcome = try await slow
            XCTAssertEqual(outcome.status, 408, outcome.message)
            XCTAssertTrue(outcome.message.contains("bytes/s, slower than the server's minimum of 100 bytes/s"), outcome.message)
            XCTAssertLessThan(outcome.seconds, 4.5)
        }
        assertClientBlamed(fixture, "the request body arrived at")
    }

    func testABodyThatStopsIsCutAfterTheBodyTimeout() async throws {
        let fixture = try ServerFixture(Self.shortLimits + [.set("Server.MinimumBytesPerSecond", 0)])
        try await fixture.test(.live) { client in
            let outcome = try await Self.raw(port: try XCTUnwrap(client.port)) { connection in
                connection.send(Self.sessionHead + "Content-Length: 200\r\n\r\n{\"user\":")
            }
            XCTAssertEqual(outcome.status, 408, outcome.message)
            XCTAssertTrue(outcome.message.hasPrefix("no byte of the request body arrived for 2 s"), outcome.message)
            XCTAssertGreaterThanOrEqual(outcome.seconds, 1.9)
            XCTAssertLessThan(outcome.seconds, 4)
        }
        assertClientBlamed(fixture, "no byte of the request body arrived for 2 s")
    }

    func testAClientThatStopsSendingMidBodyGets400AndTheBlame() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let outcome = try await Self.raw(port: try XCTUnwrap(client.port)) { connection in
                connection.send(Self.sessionHead + "Content-Length: 200\r\n\r\n{\"user\":")
                connection.shutdownSending()
            }
            XCTAssertEqual(outcome.status, 400, outcome.message)
            XCTAssertEqual(outcome.message, "the request ended before its body was complete — send it again")
        }
        assertClientBlamed(fixture, "the request ended before its body was complete")
    }

    // MARK: - Connections per address

    func testConnectionsOverThePerAddressCapAreAnswered503() async throws {
        let fixture = try ServerFixture([.set("Server.MaxConnectionsPerAddress", 2)])
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let (refused, servedAfterwards) = try await RawHTTPConnection.run {
                let request = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                var held = [try RawHTTPConnection(port: port), try RawHTTPConnection(port: port)]
                for connection in held {
                    connection.send(request)
                    _ = try connection.readResponse()
                }
                let third = try RawHTTPConnection(port: port)
                third.send(request)
                let refused = try third.readResponse()
                held.removeAll()
                // A slot is free again once the server has seen a held connection close.
                for _ in 0..<30 {
                    let next = try RawHTTPConnection(port: port)
                    next.send(request)
                    if let response = try? next.readResponse(), response.status == 200 { return (refused, true) }
                    usleep(100_000)
                }
                return (refused, false)
            }
            XCTAssertEqual(refused.status, 503)
            XCTAssertEqual(refused.headers["retry-after"], "5")
            let message = String(decoding: refused.body, as: UTF8.self)
            XCTAssertTrue(message.contains("this address already has 2 open connections"), message)
            XCTAssertTrue(servedAfterwards, "a connection is served again once one closed")
        }
        assertClientBlamed(fixture, "this address already has 2 open connections")
    }

    // MARK: - Idle connections

    /// The probe of the issue: 32 idle kept-alive connections from one address stayed open for
    /// minutes, and the address's next connection got 503. A kept-alive connection that sends
    /// nothing after its answer is now closed after `Server.IdleTimeoutSeconds`, so once the
    /// idle ones are closed the address's next connection is served.
    func testIdleKeepAliveConnectionsAreClosedAndFreeTheirSlots() async throws {
        let fixture = try ServerFixture([.set("Server.IdleTimeoutSeconds", 1)])
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let outcome = try await RawHTTPConnection.run { () throws -> (held: Int, refused: Int, closed: Bool, seconds: TimeInterval, next: Int) in
                let request = "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n"
                // Up to the cap (32, the test client's own connection may hold one of them): each
                // served and kept alive; the next one over the cap is refused.
                var held: [RawHTTPConnection] = []
                var refused = 0
                for _ in 0..<33 {
                    let connection = try RawHTTPConnection(port: port)
                    connection.send(request)
                    let status = try connection.readResponse().status
                    guard status == 200 else {
                        refused = status
                        break
                    }
                    held.append(connection)
                }
                let start = Date()
                let closed = held.allSatisfy { $0.isClosedByPeer() }
                let seconds = Date().timeIntervalSince(start)
                usleep(200_000)
                let next = try RawHTTPConnection(port: port)
                next.send(request)
                return (held.count, refused, closed, seconds, try next.readResponse().status)
            }
            XCTAssertGreaterThanOrEqual(outcome.held, 31)
            XCTAssertEqual(outcome.refused, 503, "over the cap while they are open")
            XCTAssertTrue(outcome.closed, "every idle connection was closed by the server")
            XCTAssertLessThan(outcome.seconds, 3, "within the idle timeout and a tick")
            XCTAssertEqual(outcome.next, 200, "once they are closed, the address is served again")
        }
    }

    /// A connection with a request under way is not idle, however long the answer takes to start.
    func testAConnectionIsNotIdleWhileItsNextRequestArrives() async throws {
        let fixture = try ServerFixture([.set("Server.IdleTimeoutSeconds", 1), .set("Server.HeaderTimeoutSeconds", 5)])
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let statuses = try await RawHTTPConnection.run { () throws -> [Int] in
                let connection = try RawHTTPConnection(port: port)
                var statuses: [Int] = []
                for _ in 0..<3 {
                    connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    statuses.append(try connection.readResponse().status)
                    usleep(500_000)
                }
                // The next request's headers trickle in over 2 s: the header clock, not the idle one.
                connection.trickle(Data("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8), interval: 0.05)
                statuses.append(try connection.readResponse().status)
                return statuses
            }
            XCTAssertEqual(statuses, [200, 200, 200, 200])
        }
    }

    func testTheIdleClockRunsOnlyWhenNothingIsUnderWay() {
        let start = NIODeadline.now()
        let watch = ConnectionWatch(limits: .init(headerTimeoutSeconds: 2, bodyTimeoutSeconds: 4, minimumBytesPerSecond: 0,
                                                  maxConnectionsPerAddress: 2, idleTimeoutSeconds: 3),
                                    logger: Logger(label: "test"))
        watch.phase = .awaitingHead(since: nil)
        watch.unanswered = 1
        watch.noteIfIdle(at: start)
        XCTAssertFalse(watch.idleExpired(at: start + .seconds(10)), "a request waits for its answer")
        watch.unanswered = 0
        watch.noteIfIdle(at: start)
        XCTAssertFalse(watch.idleExpired(at: start + .milliseconds(2900)))
        XCTAssertTrue(watch.idleExpired(at: start + .milliseconds(3100)))
        watch.bytesArrived(1, at: start + .seconds(4))
        XCTAssertFalse(watch.idleExpired(at: start + .seconds(10)), "a request began: the header clock runs instead")
    }

    // MARK: - Malformed HTTP

    /// Headers over what the server reads get 431 with the error body, not a reset connection.
    func testHeadersOverTheLimitAre431WithTheErrorBody() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            for header in ["X-Big: " + String(repeating: "a", count: 100 * 1024) + "\r\n",
                           (0..<1200).map { "X-Many-\($0): \(String(repeating: "b", count: 70))\r\n" }.joined()] {
                let outcome = try await Self.raw(port: port) { connection in
                    connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\n" + header + "\r\n")
                }
                XCTAssertEqual(outcome.status, 431, outcome.message)
                XCTAssertTrue(outcome.message.hasPrefix("the request's headers are larger than the server reads"), outcome.message)
                XCTAssertEqual(outcome.headers["content-type"], "application/json; charset=utf-8")
            }
            try await assertStatus(.ok, await client.get("/health", token: nil))
        }
        assertClientBlamed(fixture, "the request's headers are larger than the server reads")
    }

    func testMalformedFramingGets400WithTheErrorBody() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            for framing in ["Content-Length: -1\r\n", "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
                            "Content-Length: 5\r\nContent-Length: 6\r\n"] {
                let outcome = try await Self.raw(port: port) { connection in
                    connection.send(Self.sessionHead + framing + "\r\nhello")
                }
                XCTAssertEqual(outcome.status, 400, framing)
                XCTAssertTrue(outcome.message.hasPrefix("the request is not valid HTTP/1.1"), "\(framing): \(outcome.message)")
                XCTAssertEqual(outcome.headers["content-type"], "application/json; charset=utf-8")
            }
            try await assertStatus(.ok, await client.get("/health", token: nil))
        }
        assertClientBlamed(fixture, "the request is not valid HTTP/1.1")
    }

    func testASessionBodyOver64KiBIs413WithTheErrorBody() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let body = ByteBuffer(repeating: 0x20, count: 70 * 1024)
            let response = try await client.execute(uri: "/api/v1/session", method: .post,
                                                    headers: [.contentType: "application/json"], body: body) { $0 }
            XCTAssertEqual(response.status, .contentTooLarge)
            XCTAssertEqual(response.errorMessage, "the request body is too large — send less")
        }
    }

    // MARK: - Methods

    func testUnsupportedMethodsOnKnownPathsAre405WithAllow() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let cases: [(String, HTTPRequest.Method, String)] = [
                ("/health", .trace, "GET, HEAD"), ("/api/v1/templates", .put, "GET, HEAD"),
                ("/api/v1/templates/pump-inspection", .delete, "GET, HEAD"),
                ("/api/v1/submissions", .patch, "GET, HEAD, POST"),
                ("/api/v1/submissions/6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f", .post, "GET, HEAD, PATCH, PUT"),
                ("/api/v1/submissions/6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f/send-back", .get, "POST"),
                ("/api/v1/session", .get, "POST"),
            ]
            for (path, method, allowed) in cases {
                let response = try await client.execute(uri: path, method: method) { $0 }
                XCTAssertEqual(response.status, .methodNotAllowed, "\(method) \(path)")
                XCTAssertEqual(response.headers[.allow], allowed, "\(method) \(path)")
                XCTAssertEqual(response.errorMessage, "\(method.rawValue) is not allowed on \(path) — check the client's version")
            }
            let unknown = try await client.execute(uri: "/api/v1/nothing", method: .put) { $0 }
            XCTAssertEqual(unknown.status, .notFound)
            XCTAssertNotNil(unknown.errorMessage)
        }
    }

    func testRouteTableMatchesParametersAndOnlyWholePaths() {
        let table = RouteTable()
        table.set([RegisteredRoute(method: "GET", path: "/a/{id}"), RegisteredRoute(method: "PUT", path: "/a/{id}"),
                   RegisteredRoute(method: "POST", path: "/a"), RegisteredRoute(method: "GET", path: "/files/**")])
        XCTAssertEqual(table.methods(for: "/a/x"), ["GET", "HEAD", "PUT"], "HEAD wherever GET is")
        XCTAssertEqual(table.methods(for: "/a"), ["POST"])
        XCTAssertEqual(table.methods(for: "/a/"), ["POST"])
        XCTAssertEqual(table.methods(for: "/a/x/y"), [])
        XCTAssertEqual(table.methods(for: "/b"), [])
        XCTAssertEqual(table.methods(for: "/files/1/2"), ["GET", "HEAD"])
        XCTAssertEqual(table.methods(for: "/files"), [])
    }

    // MARK: - The rules, without a network

    private static func watch(minimum: Int = 100) -> ConnectionWatch {
        let watch = ConnectionWatch(limits: .init(headerTimeoutSeconds: 2, bodyTimeoutSeconds: 4, minimumBytesPerSecond: minimum,
                                                  maxConnectionsPerAddress: 2),
                                    logger: Logger(label: "test"))
        watch.readPending = true
        return watch
    }

    func testTheHeaderClockRunsFromTheConnectionAndFromTheFirstByteOfALaterRequest() {
        let start = NIODeadline.now()
        let watch = Self.watch()
        watch.phase = .awaitingHead(since: start)
        XCTAssertNil(watch.check(at: start + .milliseconds(1900)))
        XCTAssertEqual(watch.check(at: start + .milliseconds(2100)), .headerTimeout(seconds: 2))
        // Between requests an idle connection is the idle timeout's business, not this one's.
        watch.phase = .awaitingHead(since: nil)
        XCTAssertNil(watch.check(at: start + .seconds(60)))
        watch.bytesArrived(1, at: start + .seconds(60))
        XCTAssertNil(watch.check(at: start + .milliseconds(61_900)))
        XCTAssertEqual(watch.check(at: start + .milliseconds(62_100)), .headerTimeout(seconds: 2))
    }

    func testABodyIsCutWhenItStallsOrIsTooSlowOverTheWindow() {
        let start = NIODeadline.now()
        let stalled = Self.watch(minimum: 0)
        stalled.startBody(at: start)
        stalled.bytesArrived(10, at: start + .seconds(1))
        XCTAssertNil(stalled.check(at: start + .milliseconds(4900)))
        XCTAssertEqual(stalled.check(at: start + .milliseconds(5100)), .bodyStalled(seconds: 4))

        let slow = Self.watch(minimum: 100)
        slow.startBody(at: start)
        for second in 1...4 { slow.bytesArrived(50, at: start + .seconds(Int64(second))) }
        XCTAssertNil(slow.check(at: start + .milliseconds(3900)))
        XCTAssertEqual(slow.check(at: start + .seconds(4)), .bodyTooSlow(bytesPerSecond: 50, minimum: 100))

        let fast = Self.watch(minimum: 100)
        fast.startBody(at: start)
        fast.bytesArrived(400, at: start + .seconds(1))
        XCTAssertNil(fast.check(at: start + .seconds(4)), "400 bytes in 4 s is the minimum")
        fast.bytesArrived(399, at: start + .seconds(7))
        XCTAssertEqual(fast.check(at: start + .seconds(8)), .bodyTooSlow(bytesPerSecond: 99, minimum: 100),
                       "each window is measured on its own")
    }

    func testTheClientIsExcusedWhileTheServerHoldsReadsBack() {
        let start = NIODeadline.now()
        let watch = Self.watch()
        watch.startBody(at: start)
        watch.readPending = false
        XCTAssertNil(watch.check(at: start + .seconds(10)), "the server was not reading")
        watch.readPending = true
        XCTAssertNil(watch.check(at: start + .seconds(13)))
        XCTAssertNotNil(watch.check(at: start + .seconds(15)))
    }

    func testFaultsMapToStatusesAndTheParserErrorsToTheClient() {
        XCTAssertEqual(ClientFault(HTTPParserError.invalidEOFState), .bodyCutShort)
        XCTAssertEqual(ClientFault(HTTPParserError.unexpectedContentLength), .malformedHTTP(detail: "unexpected content-length header"))
        XCTAssertEqual(ClientFault.bodyCutShort.status, .badRequest)
        XCTAssertEqual(ClientFault.headerTimeout(seconds: 1).status, .requestTimeout)
        XCTAssertEqual(ClientFault.bodyTooSlow(bytesPerSecond: 1, minimum: 2).status, .requestTimeout)
        XCTAssertEqual(ClientFault.tooManyConnections(limit: 1).status, .serviceUnavailable)
        XCTAssertEqual(ClientFault(HTTPParserError.headerOverflow), .headersTooLarge)
        XCTAssertEqual(ClientFault.headersTooLarge.status, .requestHeaderFieldsTooLarge)
        let codes = [ClientFault.headerTimeout(seconds: 1), .bodyStalled(seconds: 1), .bodyTooSlow(bytesPerSecond: 1, minimum: 2),
                     .bodyCutShort, .malformedHTTP(detail: "x"), .tooManyConnections(limit: 1), .headersTooLarge].map(\.code)
        XCTAssertEqual(Set(codes).count, codes.count)
    }

    func testTheConnectionCounterCountsPerAddress() {
        let counter = ConnectionCounter()
        XCTAssertEqual(counter.open("10.0.0.1"), 1)
        XCTAssertEqual(counter.open("10.0.0.1"), 2)
        XCTAssertEqual(counter.open("10.0.0.2"), 1)
        counter.close("10.0.0.1")
        XCTAssertEqual(counter.open("10.0.0.1"), 2)
        counter.close("10.0.0.2")
        XCTAssertEqual(counter.open("10.0.0.2"), 1)
    }
}
