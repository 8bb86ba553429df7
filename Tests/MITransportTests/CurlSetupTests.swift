import CCurl
import Foundation
import TestSupport
import XCTest
@testable import MITransport

/// The libcurl options every request gets.
final class CurlSetupTests: XCTestCase {
    private func client(caFile: String? = nil, lowSpeedTime: Int = 30) throws -> (ServerClient, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "curl-setup")
        let server = try TestServer.configuration(scheme: "https", domain: "mi.example.com", port: 8443,
                                                  caFile: caFile, in: directory)
        return (ServerClient(server: server, lowSpeedTime: lowSpeedTime), directory)
    }

    func testGlobalInitSucceededOnce() {
        XCTAssertEqual(CurlGlobal.initCode, CURLE_OK.rawValue)
        XCTAssertTrue(CurlGlobal.isReady)
    }

    func testCommonOptions() throws {
        let (client, _) = try client()
        let url = try XCTUnwrap(URL(string: "https://mi.example.com:8443/health"))
        let options = client.commonOptions(url: url)
        XCTAssertTrue(options.contains(.long(CURLOPT_NOSIGNAL, 1)))
        XCTAssertTrue(options.contains(.long(CURLOPT_CONNECTTIMEOUT, 10)))
        XCTAssertTrue(options.contains(.long(CURLOPT_LOW_SPEED_LIMIT, 1)))
        XCTAssertTrue(options.contains(.long(CURLOPT_LOW_SPEED_TIME, 30)))
        XCTAssertTrue(options.contains(.string(CURLOPT_USERAGENT, "mi/0.1")))
        XCTAssertTrue(options.contains(.string(CURLOPT_URL, "https://mi.example.com:8443/health")))
        XCTAssertFalse(options.contains { $0.option == CURLOPT_CAINFO }, "no CAFile: the system's CAs")
    }

    func testTLSVerificationIsNeverTurnedOff() throws {
        let (client, _) = try client(caFile: "/etc/mi/ca.pem")
        let url = try XCTUnwrap(URL(string: "https://mi.example.com:8443/health"))
        let options = client.commonOptions(url: url)
        XCTAssertFalse(options.contains { $0.option == CURLOPT_SSL_VERIFYPEER || $0.option == CURLOPT_SSL_VERIFYHOST })
        XCTAssertTrue(options.contains(.string(CURLOPT_CAINFO, "/etc/mi/ca.pem")))
    }

    func testLowSpeedTimeCanBeLowered() throws {
        let (client, _) = try client(lowSpeedTime: 2)
        let url = try XCTUnwrap(URL(string: "https://mi.example.com:8443/health"))
        XCTAssertTrue(client.commonOptions(url: url).contains(.long(CURLOPT_LOW_SPEED_TIME, 2)))
    }

    func testEasyHandleTurnsCodesIntoLibcurlMessages() throws {
        let easy = try CurlEasy()
        XCTAssertEqual(easy.describe(CURLE_COULDNT_RESOLVE_HOST), "Couldn't resolve host name")
        XCTAssertThrowsError(try easy.apply(.long(CURLoption(rawValue: 99_999), 1))) { error in
            guard case .libcurl(let detail)? = error as? TransportError else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.hasSuffix("An unknown option was passed in to libcurl"), detail)
        }
    }

    func testErrorMessagesAreDistinct() {
        let errors = TransportErrorClassTests.everyCase
        let messages = errors.compactMap(\.errorDescription)
        XCTAssertEqual(messages.count, errors.count)
        XCTAssertEqual(Set(messages).count, errors.count)
        XCTAssertEqual(TransportError.sessionExpired.errorDescription, "session expired — run `mi login`")
        XCTAssertEqual(TransportError.wrongCredentials.errorDescription, "wrong user name or password")
    }
}
