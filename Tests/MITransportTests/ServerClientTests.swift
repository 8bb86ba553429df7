import Foundation
import MIKit
import TestSupport
import XCTest
@testable import MITransport

/// Every endpoint against the Python stand-in for mi-server, and the errors a user can act on.
final class ServerClientTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    private func client(retry: RetryPolicy = RetryPolicy(attempts: 3, initialDelay: 0.01, maxDelay: 0.05),
                        lowSpeedTime: Int = 30) throws -> ServerClient {
        ServerClient(server: try server.configuration(), retry: retry, lowSpeedTime: lowSpeedTime)
    }

    private func loggedIn(_ user: String = "fred") throws -> ServerClient {
        let client = try client()
        _ = try client.createSession(user: user, password: "secret")
        return client
    }

    func testHealth() throws {
        try client().health()
        XCTAssertEqual(server.requests("GET", "/health").first?["userAgent"] as? String, "mi/0.1")
    }

    func testHealthRefusesAProxyPage() throws {
        try server.control(routes: ["GET /health": [["status": 200, "html": true]]])
        let error = assertTransportError { try self.client().health() }
        guard case .badResponse(let expected, let detail)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(expected, "mi-server's health answer")
        XCTAssertTrue(detail.contains("text/html"), detail)
    }

    func testCreateSession() throws {
        let client = try client()
        let session = try client.createSession(user: "ana", password: "secret")
        XCTAssertEqual(session.user, "ana")
        XCTAssertEqual(session.displayName, "Ana Pérez")
        XCTAssertEqual(session.role, .technician)
        XCTAssertEqual(session.expiresAt, Date(timeIntervalSince1970: 1_893_484_800))
        XCTAssertEqual(client.token, session.token)
    }

    func testWrongPasswordIsNotAnExpiredSession() throws {
        let error = assertTransportError { try self.client().createSession(user: "ana", password: "nope") }
        XCTAssertEqual(error, .wrongCredentials)
        XCTAssertEqual(error?.failureClass, .notPermitted)
        XCTAssertEqual(error?.errorDescription, "wrong user name or password")
    }

    func testTemplates() throws {
        let client = try loggedIn("ana")
        let listing = try client.templates()
        XCTAssertEqual(listing.map(\.id), ["pump"])
        XCTAssertEqual(listing.first?.version, 3)
        let data = try client.template(id: "pump")
        XCTAssertEqual(FileDigest.sha256(of: data), listing.first?.sha256)
        let logged = server.requests("GET", "/api/v1/templates/pump").first
        XCTAssertEqual(logged?["authorization"] as? String, "Bearer \(client.token ?? "")")
    }

    func testUnknownTemplateIs404() throws {
        let error = assertTransportError { try self.loggedIn().template(id: "nope") }
        XCTAssertEqual(error, .notFound(what: "template \"nope\""))
        XCTAssertEqual(error?.failureClass, .notFound)
    }

    func testTemplateThatIsNotJSONIsRefused() throws {
        try server.control(routes: ["GET /api/v1/templates/pump": [["status": 200, "html": true]]])
        let error = assertTransportError { try self.loggedIn().template(id: "pump") }
        guard case .badResponse(let expected, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(expected, "an MI template")
    }

    func testExpiredTokenIs401() throws {
        let client = ServerClient(server: try server.configuration(), token: "forged")
        let error = assertTransportError { try client.templates() }
        XCTAssertEqual(error, .sessionExpired)
        XCTAssertEqual(error?.errorDescription, "session expired — run `mi login`")
    }

    func testUnknownReceiptIsNil() throws {
        XCTAssertNil(try loggedIn().receipt(id: FormID()))
    }

    func testErrorMessageFromTheServerIsCarried() throws {
        try server.control(routes: ["GET /api/v1/templates": [["status": 400, "message": "say please"]]])
        let error = assertTransportError { try self.loggedIn().templates() }
        XCTAssertEqual(error, .unexpectedStatus(status: 400, message: "say please"))
    }

    func testResponseLargerThanTheLimitIsRefused() throws {
        let body = String(repeating: "x", count: 5000)
        try server.control(routes: ["GET /api/v1/templates": [["status": 200, "body": body]]])
        let client = try loggedIn()
        client.responseLimit = 1000
        let error = assertTransportError { try client.templates() }
        guard case .responseTooLarge(_, let limit)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(limit, 1000)
    }

    // MARK: - Network failures

    func testConnectionRefused() throws {
        let configuration = try server.configuration()
        server.stop()
        let client = ServerClient(server: configuration, retry: .none)
        let error = assertTransportError { try client.health() }
        guard case .connectionRefused(let url, let detail)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(url, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(error?.failureClass, .unreachable)
        XCTAssertTrue(detail.hasPrefix("Couldn't connect to server"), "curl_easy_strerror first: \(detail)")
        let message = try XCTUnwrap(error?.errorDescription)
        XCTAssertTrue(message.hasPrefix("mi-server at http://127.0.0.1:\(server.port) refused the connection — is it running?"),
                      message)
    }

    func testConnectionRefusedIsRetried() throws {
        let configuration = try server.configuration()
        server.stop()
        let client = ServerClient(server: configuration, retry: RetryPolicy(attempts: 3, initialDelay: 0.01))
        assertTransportError { try client.createSession(user: "ana", password: "secret") }
        XCTAssertEqual(client.attemptsOfLastRequest, 3, "a login that never connected is safe to repeat")
    }

    func testUnknownHost() throws {
        let configuration = try server.configuration(domain: "mi-server.invalid")
        let error = assertTransportError { try ServerClient(server: configuration, retry: .none).health() }
        guard case .cannotResolveHost(let host, let detail)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(host, "mi-server.invalid")
        XCTAssertTrue(detail.contains("mi-server.invalid"), "the error buffer's text: \(detail)")
        XCTAssertTrue(error?.errorDescription?.hasPrefix(
            "cannot find the server mi-server.invalid — check Server.Domain in Config.plist and the network") ?? false)
    }

    func testStalledResponseIsAbandoned() throws {
        try server.control(routes: ["GET /api/v1/templates": [["hangSeconds": 20]]])
        let client = try client(retry: .none, lowSpeedTime: 1)
        _ = try client.createSession(user: "ana", password: "secret")
        let start = Date()
        let error = assertTransportError { try client.templates() }
        guard case .timedOut(let url, let detail)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(url, "http://127.0.0.1:\(server.port)")
        XCTAssertTrue(detail.hasPrefix("Timeout was reached"), detail)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testStalledBodyIsAbandonedAndRetried() throws {
        try server.control(routes: ["GET /api/v1/templates": [["slowBody": 20], "normal"]])
        let client = try client(lowSpeedTime: 1)
        _ = try client.createSession(user: "ana", password: "secret")
        XCTAssertEqual(try client.templates().map(\.id), ["pump"])
        XCTAssertEqual(client.attemptsOfLastRequest, 2)
    }
}
