import MIKit
import XCTest
@testable import MITransport

/// Every transport failure has the class that decides `mi`'s exit status, and a stable code.
final class TransportErrorClassTests: XCTestCase {
    /// One value of every case (CurlSetupTests checks their messages).
    static let everyCase: [TransportError] = [
        .invalidURL(endpoint: "template"), .cannotResolveHost(host: "h", detail: "d"),
        .connectionRefused(url: "u", detail: "d"), .cannotConnect(url: "u", detail: "d"),
        .certificateNotTrusted(host: "h", detail: "d"), .caFileUnusable(path: "p", detail: "d"),
        .tlsFailed(host: "h", detail: "d"), .timedOut(url: "u", detail: "d"), .network(url: "u", detail: "d"),
        .responseTooLarge(url: "u", limit: 1), .sessionExpired, .wrongCredentials, .forbidden(message: "m"),
        .notFound(what: "w"), .conflict(message: "m"), .uploadTooLarge(message: "m", uploadBytes: 1),
        .tooManyRequests(message: "m", attempts: 2), .serverError(status: 500, message: "m", attempts: 2),
        .unexpectedStatus(status: 400, message: "m"), .badResponse(expected: "e", detail: "d"),
        .unreadableFile(path: "p", detail: "d"), .invalidUpload(reason: "r"), .libcurl(detail: "d"),
    ]

    private func assertClass(_ expected: FailureClass, _ errors: [TransportError], file: StaticString = #filePath, line: UInt = #line) {
        for error in errors { XCTAssertEqual(error.failureClass, expected, "\(error)", file: file, line: line) }
    }

    func testNoConnectionAndTimeoutsAreUnreachable() {
        assertClass(.unreachable, [
            .cannotResolveHost(host: "h", detail: "d"), .connectionRefused(url: "u", detail: "d"),
            .cannotConnect(url: "u", detail: "d"), .timedOut(url: "u", detail: "d"), .network(url: "u", detail: "d"),
            .tooManyRequests(message: nil, attempts: 4),
        ])
        XCTAssertEqual(TransportError.connectionRefused(url: "u", detail: "d").failureClass.exitCode, 75)
    }

    /// 502, 503 and 504 are a server that is restarting or overloaded: worth trying again.
    func testGatewayAndUnavailableStatusesAreUnreachableOtherServerErrorsRefused() {
        assertClass(.unreachable, [502, 503, 504].map { .serverError(status: $0, message: nil, attempts: 4) })
        assertClass(.refused, [500, 501, 507].map { .serverError(status: $0, message: nil, attempts: 4) })
    }

    func testTLSAndSettingsAreConfiguration() {
        assertClass(.configuration, [
            .invalidURL(endpoint: "template"), .certificateNotTrusted(host: "h", detail: "d"),
            .caFileUnusable(path: "p", detail: "d"), .tlsFailed(host: "h", detail: "d"),
        ])
    }

    func testCredentialsSessionsAndRolesAreNotPermitted() {
        assertClass(.notPermitted, [.wrongCredentials, .sessionExpired, .forbidden(message: "foremen only")])
    }

    func testServerRefusalsAreRefused() {
        assertClass(.refused, [
            .conflict(message: "m"), .uploadTooLarge(message: nil, uploadBytes: 9), .unexpectedStatus(status: 400, message: nil),
            .badResponse(expected: "e", detail: "d"), .responseTooLarge(url: "u", limit: 1),
        ])
    }

    func testMissingThingsAreNotFound() {
        assertClass(.notFound, [.notFound(what: "template x"), .unreadableFile(path: "p", detail: "d")])
        XCTAssertEqual(TransportError.notFound(what: "x").failureClass.exitCode, 66)
    }

    func testMisuseAndLibcurlFailuresAreInternal() {
        assertClass(.internalFailure, [.invalidUpload(reason: "r"), .libcurl(detail: "d")])
    }

    func testCodesAreDistinctKebabCase() {
        let all = Self.everyCase
        XCTAssertEqual(Set(all.map(\.code)).count, all.count)
        for error in all {
            XCTAssertNotNil(error.code.range(of: "^[a-z0-9]+(-[a-z0-9]+)*$", options: .regularExpression), error.code)
        }
    }
}
