import Foundation
import TestSupport
import XCTest
@testable import MITransport

/// Which failures are repeated, how often and how patiently, against a real socket.
final class RetryTests: XCTestCase {
    private var server: TestServer!
    private let quick = RetryPolicy(attempts: 3, initialDelay: 0.01, maxDelay: 0.05)

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    private func foreman(retry: RetryPolicy) throws -> ServerClient {
        let client = ServerClient(server: try server.configuration(), retry: retry)
        _ = try client.createSession(user: "fred", password: "secret")
        return client
    }

    func testUploadRetriedAfter503HonouringRetryAfter() throws {
        let busy: [String: Any] = ["status": 503, "retryAfter": "1", "message": "busy"]
        try server.control(routes: ["PUT /api/v1/submissions/{id}": [busy, busy, "normal"]])
        let client = try foreman(retry: .default)
        let directory = try TemporaryDirectory(prefix: "retry")
        let form = try UploadFixture.files(in: directory)
        let start = Date()
        let result = try client.upload(formID: form.id, parts: form.files, progress: nil)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertTrue(result.created)
        XCTAssertEqual(client.attemptsOfLastRequest, 3)
        XCTAssertEqual(server.requests("PUT", "/api/v1/submissions/{id}").map { $0["status"] as? Int }, [503, 503, 201])
        XCTAssertGreaterThanOrEqual(elapsed, 1.9, "two waits of Retry-After: 1")
        XCTAssertLessThan(elapsed, 6)
    }

    func testRetriedAfter429() throws {
        try server.control(routes: ["GET /api/v1/templates": [["status": 429, "retryAfter": "0"], "normal"]])
        let client = try foreman(retry: quick)
        XCTAssertEqual(try client.templates().count, 1)
        XCTAssertEqual(client.attemptsOfLastRequest, 2)
    }

    func test429ForeverGivesUp() throws {
        try server.control(routes: ["GET /api/v1/templates": [["status": 429, "message": "slow down"]]])
        let error = assertTransportError { try self.foreman(retry: self.quick).templates() }
        XCTAssertEqual(error, .tooManyRequests(message: "slow down", attempts: 3))
    }

    func testEveryRetryableStatusIsRetried() throws {
        for status in [408, 500, 502, 503, 504] {
            try server.control(routes: ["GET /api/v1/templates/pump": [["status": status], "normal"]])
            let client = try foreman(retry: quick)
            XCTAssertNoThrow(try client.template(id: "pump"), "status \(status)")
            XCTAssertEqual(client.attemptsOfLastRequest, 2, "status \(status)")
            try server.control()
            server = try TestServer()  // fresh request counters
        }
    }

    func test500ForeverFailsAfterAllAttempts() throws {
        try server.control(routes: ["PUT /api/v1/submissions/{id}": [["status": 500, "message": "disk full"]]])
        let client = try foreman(retry: quick)
        let directory = try TemporaryDirectory(prefix: "retry")
        let form = try UploadFixture.files(in: directory)
        let error = assertTransportError { try client.upload(formID: form.id, parts: form.files, progress: nil) }
        XCTAssertEqual(error, .serverError(status: 500, message: "disk full", attempts: 3))
        XCTAssertEqual(server.requests("PUT", "/api/v1/submissions/{id}").count, 3)
        let message = try XCTUnwrap(error?.errorDescription)
        XCTAssertTrue(message.contains("500") && message.contains("disk full"), message)
    }

    func testNotRetried() throws {
        for status in [400, 401, 403, 404, 409, 413] {
            try server.control(routes: ["GET /api/v1/templates": [["status": status, "message": "no"], "normal"]])
            let client = try foreman(retry: quick)
            assertTransportError { try client.templates() }
            XCTAssertEqual(client.attemptsOfLastRequest, 1, "status \(status)")
            server = try TestServer()
        }
    }

    /// A connection closed without an answer after the upload's headers is retried by the client,
    /// each time on a fresh connection.
    func testDroppedConnectionRetriedForUpload() throws {
        try server.control(routes: ["PUT /api/v1/submissions/{id}": [["drop": true], ["drop": true], "normal"]])
        let client = try foreman(retry: quick)
        let directory = try TemporaryDirectory(prefix: "retry")
        let form = try UploadFixture.files(in: directory)
        let result = try client.upload(formID: form.id, parts: form.files, progress: nil)
        XCTAssertTrue(result.created)
        XCTAssertEqual(client.attemptsOfLastRequest, 3)
        XCTAssertEqual(server.requests("PUT", "/api/v1/submissions/{id}").map { $0["status"] as? Int }, [0, 0, 201])
    }

    func testLoginNotRetriedOnceConnected() throws {
        try server.control(routes: ["POST /api/v1/session": [["status": 503, "message": "directory unreachable"], "normal"]])
        let client = ServerClient(server: try server.configuration(), retry: quick)
        let error = assertTransportError { try client.createSession(user: "ana", password: "secret") }
        XCTAssertEqual(error, .serverError(status: 503, message: "directory unreachable", attempts: 1))

        try server.control(routes: ["POST /api/v1/session": [["drop": true], "normal"]])
        server = try TestServer()
        try server.control(routes: ["POST /api/v1/session": [["drop": true], "normal"]])
        let again = ServerClient(server: try server.configuration(), retry: quick)
        let dropped = assertTransportError { try again.createSession(user: "ana", password: "secret") }
        guard case .network? = dropped else { return XCTFail("\(String(describing: dropped))") }
        XCTAssertEqual(server.requests("POST", "/api/v1/session").count, 1)
    }

    func testNoRetryPolicyTriesOnce() throws {
        try server.control(routes: ["GET /api/v1/templates": [["status": 503], "normal"]])
        let client = try foreman(retry: .none)
        let error = assertTransportError { try client.templates() }
        XCTAssertEqual(error, .serverError(status: 503, message: "scripted failure 503", attempts: 1))
    }
}
