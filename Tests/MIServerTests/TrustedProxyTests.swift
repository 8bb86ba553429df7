import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `Server.TrustedProxies`: behind nginx every connection comes from the proxy, so the sign-in
/// limits count the client `X-Forwarded-For` names — only when the proxy is trusted.
final class TrustedProxyTests: XCTestCase {
    func testTheClientIsTheNearestUntrustedForwardedAddress() {
        let trusted: Set = ["127.0.0.1", "10.0.0.2"]
        XCTAssertEqual(ClientAddress.resolve(peer: "127.0.0.1", chain: ["203.0.113.5"], trusted: trusted), "203.0.113.5")
        XCTAssertEqual(ClientAddress.resolve(peer: "127.0.0.1", chain: ["198.51.100.1", "203.0.113.5", "10.0.0.2"], trusted: trusted),
                       "203.0.113.5", "a forged left entry is ignored; a trusted hop is skipped")
        XCTAssertEqual(ClientAddress.resolve(peer: "127.0.0.1", chain: [], trusted: trusted), "127.0.0.1")
        XCTAssertEqual(ClientAddress.resolve(peer: "127.0.0.1", chain: ["198.51.100.1", nil, "10.0.0.2"], trusted: trusted),
                       "10.0.0.2", "nothing left of an entry that is no address is believed")
    }

    /// 20 failures from one forwarded address lock that address only, when the proxy is trusted;
    /// without `TrustedProxies` the header is ignored and everyone behind the proxy is one address.
    private func signIns(trusted: Bool) async throws -> (locked: HTTPResponse.Status, other: HTTPResponse.Status) {
        let fixture = try ServerFixture(trusted ? [.set("Server.TrustedProxies", .array(["127.0.0.1"]))] : [])
        return try await fixture.test(.live) { client in
            func signIn(_ user: String, _ password: String, from address: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/api/v1/session", method: .post,
                                         headers: [.contentType: "application/json", ClientAddress.forwardedFor: address],
                                         body: ByteBuffer(string: #"{"user": "\#(user)", "password": "\#(password)"}"#)) { $0 }.status
            }
            for index in 0..<20 {
                let status = try await signIn("guesser\(index)", "guess", from: "203.0.113.5")
                XCTAssertEqual(status, .unauthorized)
            }
            let locked = try await signIn("ana", FakeDirectory.password, from: "203.0.113.5")
            let other = try await signIn("fiona", FakeDirectory.password, from: "198.51.100.7")
            return (locked, other)
        }
    }

    func testBehindATrustedProxyOneClientsFailuresDoNotLockOutTheOthers() async throws {
        let result = try await signIns(trusted: true)
        XCTAssertEqual(result.locked, .tooManyRequests)
        XCTAssertEqual(result.other, .ok)
    }

    func testAnUntrustedPeersForwardedForIsIgnored() async throws {
        let result = try await signIns(trusted: false)
        XCTAssertEqual(result.locked, .tooManyRequests)
        XCTAssertEqual(result.other, .tooManyRequests, "X-Forwarded-For from anyone could dodge the limit")
    }
}
