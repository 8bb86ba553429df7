import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import TestSupport
import XCTest

final class AuthorizationTests: XCTestCase {
    static let protectedRoutes = ["/api/v1/templates", "/api/v1/templates/pump-inspection", "/api/v1/submissions",
                           "/api/v1/submissions/6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f"]

    private static func assertUnauthorized(_ response: TestResponse, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, .unauthorized, message, file: file, line: line)
        XCTAssertEqual(response.errorMessage, "session expired or invalid — run `mi login`", message, file: file, line: line)
    }

    func testMissingTokenIs401() async throws {
        let fixture = try ServerFixture()
        let routes = Self.protectedRoutes
        try await fixture.test { client in
            for route in routes {
                Self.assertUnauthorized(try await client.get(route, token: nil), route)
            }
            let upload = try ServerFixture.upload()
            let response = try await client.execute(uri: "/api/v1/submissions", method: .post,
                                                    headers: [.contentType: upload.contentType],
                                                    body: ByteBuffer(bytes: upload.data)) { $0 }
            Self.assertUnauthorized(response, "upload")
        }
    }

    func testMalformedTokensAre401() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let malformed = ["", "abc", "a.b.c", token + ".x", ".", "....", "%%%.%%%", String(token.dropLast(3)),
                             String(repeating: "a", count: 10_000)]
            for bad in malformed {
                Self.assertUnauthorized(try await client.get("/api/v1/templates", token: bad), bad)
            }
            for header in ["Basic Zm9vOmJhcg==", "Bearer", "bearer", token] {
                let response = try await client.execute(uri: "/api/v1/templates", method: .get,
                                                        headers: [.authorization: header]) { $0 }
                Self.assertUnauthorized(response, header)
            }
            // The scheme is case-insensitive.
            let response = try await client.execute(uri: "/api/v1/templates", method: .get,
                                                    headers: [.authorization: "bearer \(token)"]) { $0 }
            XCTAssertEqual(response.status, .ok)
        }
    }

    func testForgedTokensAre401() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("ana")
            let pieces = token.split(separator: ".").map(String.init)
            // The technician promotes herself: a new payload with the old MAC.
            var claims = try JSONDecoder().decode(SessionClaims.self, from: XCTUnwrap(Base64URL.decode(pieces[0])))
            claims.role = .foreman
            let promoted = Base64URL.encode(try JSONEncoder().encode(claims)) + "." + pieces[1]
            Self.assertUnauthorized(try await client.get("/api/v1/templates", token: promoted), "promoted")
            // Signed with another key.
            let otherKey = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            let foreign = try SessionTokens(keyBytes: otherKey, lifetime: 3600).sign(claims)
            Self.assertUnauthorized(try await client.get("/api/v1/templates", token: foreign), "foreign key")
            // The MAC with one character changed.
            var mac = Array(pieces[1])
            mac[0] = mac[0] == "A" ? "B" : "A"
            Self.assertUnauthorized(try await client.get("/api/v1/templates", token: pieces[0] + "." + String(mac)), "mac")
            // Unsigned ("alg none" style).
            Self.assertUnauthorized(try await client.get("/api/v1/templates", token: pieces[0] + "."), "unsigned")
        }
    }

    func testExpiredTokenIs401() async throws {
        let fixture = try ServerFixture()
        let clock = fixture.clock
        try await fixture.test { client in
            let token = try await client.login("fiona")
            clock.advance(by: 59 * 60)
            try await assertStatus(.ok, await client.get("/api/v1/templates", token: token))
            clock.advance(by: 60)
            Self.assertUnauthorized(try await client.get("/api/v1/templates", token: token), "expired")
        }
    }

    func testTechnicianCannotUploadOrListSubmissions() async throws {
        let fixture = try ServerFixture()
        let data = fixture.data
        try await fixture.test { client in
            let token = try await client.login("ana")
            let response = try await client.upload(try ServerFixture.upload(), token: token)
            XCTAssertEqual(response.status, .forbidden)
            XCTAssertTrue(response.errorMessage?.contains("foreman") ?? false, response.text)
            // The listing is restricted to ana's own forms: none yet.
            let list = try await client.get("/api/v1/submissions", token: token)
            XCTAssertEqual(list.status, .ok)
            let summaries = (list.json as? [String: Any])?["submissions"] as? [[String: Any]]
            XCTAssertEqual(summaries?.count, 0, list.text)
            // A technician may still read a receipt and the templates.
            try await assertStatus(.ok, await client.get("/api/v1/templates", token: token))
            try await assertStatus(.notFound, await client.get(
                "/api/v1/submissions/6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f", token: token))
        }
        XCTAssertEqual(Files.names(in: data.appendingPathComponent("submissions")), [])
        XCTAssertEqual(DataLayout(root: data).uploadsBeingReceived, [])
    }
}
