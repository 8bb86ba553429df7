import Foundation
import MIDirectory
import MIKit
@testable import MIServer
import XCTest

/// The publish right travels in the signed session; tokens signed before it are read safely.
final class PublishRightSessionTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let key = [UInt8](repeating: 7, count: 32)

    func testIssuedTokensCarryTheDirectorysDecision() throws {
        let tokens = SessionTokens(keyBytes: key, lifetime: 3600, adminGroupConfigured: true)
        let admin = DirectoryUser(userName: "ana", dn: "uid=ana", displayName: "Ana", role: .technician, adminGroupMember: true)
        let foreman = DirectoryUser(userName: "fiona", dn: "uid=fiona", displayName: "Fiona", role: .foreman, adminGroupMember: false)
        let adminToken = try tokens.issue(for: admin, now: now).token
        let foremanToken = try tokens.issue(for: foreman, now: now).token
        XCTAssertEqual(tokens.verify(adminToken, now: now)?.mayPublish, true)
        XCTAssertEqual(tokens.verify(foremanToken, now: now)?.mayPublish, false)
    }

    func testOldTokenOfAForemanMayPublishOnlyWithoutAnAdminGroup() throws {
        let old = SessionClaims(sub: "fiona", role: .foreman, name: "Fiona", exp: Int64(now.timeIntervalSince1970) + 60)
        let token = try SessionTokens(keyBytes: key, lifetime: 3600).sign(old)
        XCTAssertFalse(try XCTUnwrap(String(data: XCTUnwrap(Base64URL.decode(token.split(separator: ".")[0])), encoding: .utf8)).contains("pub"))
        XCTAssertEqual(SessionTokens(keyBytes: key, lifetime: 3600, adminGroupConfigured: false).verify(token, now: now)?.mayPublish, true)
        XCTAssertEqual(SessionTokens(keyBytes: key, lifetime: 3600, adminGroupConfigured: true).verify(token, now: now)?.mayPublish, false)
    }

    func testOldTokenOfATechnicianNeverPublishes() throws {
        let old = SessionClaims(sub: "ana", role: .technician, name: "Ana", exp: Int64(now.timeIntervalSince1970) + 60)
        let token = try SessionTokens(keyBytes: key, lifetime: 3600).sign(old)
        XCTAssertEqual(SessionTokens(keyBytes: key, lifetime: 3600).verify(token, now: now)?.mayPublish, false)
    }

    func testSignInThroughTheAPICarriesTheRight() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let tokens = try SessionTokens(keyBytes: [UInt8](Data(contentsOf: fixture.layout.signingKey)), lifetime: 3600)
            let fiona = try await client.login("fiona")
            let ana = try await client.login("ana")
            XCTAssertEqual(tokens.verify(fiona, now: fixture.clock.now)?.pub, true)
            XCTAssertEqual(tokens.verify(ana, now: fixture.clock.now)?.pub, false)
        }
    }
}
