import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import XCTest

final class SessionTests: XCTestCase {
    func testHealthNeedsNoToken() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let response = try await client.get("/health", token: nil)
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.json as? [String: String], ["status": "ok"])
        }
    }

    func testLoginReturnsSignedTokenWithRoleAndExpiry() async throws {
        let fixture = try ServerFixture()
        let now = fixture.clock.now
        try await fixture.test { client in
            let body = ByteBuffer(string: #"{"user": "fiona", "password": "secret"}"#)
            try await client.execute(uri: "/api/v1/session", method: .post, body: body) { response in
                XCTAssertEqual(response.status, .ok)
                let json = try XCTUnwrap(response.json as? [String: Any])
                XCTAssertEqual(json["user"] as? String, "fiona")
                XCTAssertEqual(json["displayName"] as? String, "Fiona Gallagher")
                XCTAssertEqual(json["role"] as? String, "foreman")
                let expected = ISO8601DateFormatter().string(from: now.addingTimeInterval(60 * 60))
                XCTAssertEqual(json["expiresAt"] as? String, expected)
                let token = try XCTUnwrap(json["token"] as? String)
                let pieces = token.split(separator: ".")
                XCTAssertEqual(pieces.count, 2)
                let payload = try XCTUnwrap(Base64URL.decode(pieces[0]))
                let claims = try JSONDecoder().decode(SessionClaims.self, from: payload)
                XCTAssertEqual(claims.sub, "fiona")
                XCTAssertEqual(claims.role, .foreman)
                XCTAssertEqual(claims.name, "Fiona Gallagher")
                XCTAssertEqual(claims.exp, Int64(now.timeIntervalSince1970) + 3600)
            }
        }
    }

    func testWrongPasswordUnknownUserAndEmptyPasswordAre401() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            for body in [#"{"user": "ana", "password": "wrong"}"#, #"{"user": "nobody", "password": "secret"}"#,
                         #"{"user": "ana", "password": ""}"#, #"{"user": "a/b", "password": "secret"}"#] {
                try await client.execute(uri: "/api/v1/session", method: .post, body: ByteBuffer(string: body)) { response in
                    XCTAssertEqual(response.status, .unauthorized, body)
                    XCTAssertNotNil(response.errorMessage, body)
                }
            }
        }
    }

    func testMalformedSessionBodyIs400() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            for body in ["not json", #"{"user": "ana"}"#, #"["ana", "secret"]"#, ""] {
                try await client.execute(uri: "/api/v1/session", method: .post, body: ByteBuffer(string: body)) { response in
                    XCTAssertEqual(response.status, .badRequest, body)
                    XCTAssertTrue(response.errorMessage?.contains("JSON") ?? false, response.text)
                }
            }
        }
        XCTAssertEqual(fixture.fakeDirectory.calls, 0, "a malformed body never reaches the directory")
    }

    func testUnreachableDirectoryIs503() async throws {
        let fixture = try ServerFixture()
        fixture.fakeDirectory.unreachable = true
        try await fixture.test { client in
            let body = ByteBuffer(string: #"{"user": "ana", "password": "secret"}"#)
            try await client.execute(uri: "/api/v1/session", method: .post, body: body) { response in
                XCTAssertEqual(response.status, .serviceUnavailable)
                XCTAssertTrue(response.errorMessage?.contains("directory") ?? false, response.text)
            }
        }
    }

    func testUnknownRouteIs404WithJSONMessage() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let response = try await client.get("/api/v2/nothing", token: nil)
            XCTAssertEqual(response.status, .notFound)
            XCTAssertTrue(response.errorMessage?.contains("/api/v2/nothing") ?? false, response.text)
        }
    }
}
