import Foundation
import Glibc
import MIDirectory
import MIKit
import XCTest

/// A directory that is down, frozen, or never answers: a clean `.unreachable` within the
/// timeout, never a hang.
final class DirectoryOutageTests: XCTestCase {
    private static let timeoutSeconds = 2
    /// The spec's bound: the timeout plus 2 s.
    private static let deadline = TimeInterval(timeoutSeconds + 2)

    private func configuration(url: String) -> DirectoryConfiguration {
        DirectoryConfiguration(
            url: url, startTLS: false, caFile: nil, baseDN: "dc=example,dc=test",
            userFilter: "(uid=%s)", bindDN: "cn=mi-service,dc=example,dc=test", bindPassword: "secret",
            foremanGroup: "cn=foremen,ou=groups,dc=corp,dc=test", groupMemberAttribute: "member",
            timeoutSeconds: Self.timeoutSeconds)
    }

    /// Runs `body`, expects `.unreachable` with one of `reasons` within the deadline.
    private func assertUnreachable(
        _ reasons: String..., body: () throws -> some Any, file: StaticString = #filePath, line: UInt = #line
    ) {
        let start = Date()
        let error = assertDirectoryError(try body(), file: file, line: line)
        let elapsed = Date().timeIntervalSince(start)
        guard case .unreachable(_, let actual, _) = error else {
            return XCTFail("expected .unreachable, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertTrue(reasons.contains(actual), "reason \(actual), expected one of \(reasons)", file: file, line: line)
        XCTAssertEqual(error?.failureClass, .unreachable, "try again later: exit 75", file: file, line: line)
        XCTAssertLessThan(elapsed, Self.deadline, file: file, line: line)
    }

    func testClosedPortIsUnreachable() {
        let url = TCPEndpoints.closedPortURL()
        let directory = LDAPDirectory(configuration: configuration(url: url))
        assertUnreachable("connection refused") { try directory.authenticate(user: "ana", password: "ana-password") }
        assertUnreachable("connection refused") { try directory.listUsers() }
        let message = assertDirectoryError(try directory.lookup(user: "ana"))?.errorDescription ?? ""
        XCTAssertTrue(message.hasPrefix("directory unreachable at \(url): connection refused — "), message)
    }

    func testClosedPortWithStartTLSIsUnreachableNotATLSError() {
        var configuration = configuration(url: TCPEndpoints.closedPortURL())
        configuration.startTLS = true
        let directory = LDAPDirectory(configuration: configuration)
        assertUnreachable("connection refused") { try directory.authenticate(user: "ana", password: "ana-password") }
    }

    /// A server whose listen queue is full never completes the TCP handshake: only
    /// LDAP_OPT_NETWORK_TIMEOUT ends the wait.
    func testConnectionThatNeverCompletesTimesOut() throws {
        let listener = try XCTUnwrap(TCPEndpoints.saturatedListener())
        defer { listener.descriptors.forEach { close($0) } }
        let directory = LDAPDirectory(configuration: configuration(url: listener.url))
        assertUnreachable("timed out after 2 s") { try directory.authenticate(user: "ana", password: "ana-password") }
    }

    /// A second, throwaway slapd: works, then is frozen (SIGSTOP: connections are accepted by
    /// the kernel but never answered, so LDAP_OPT_TIMEOUT must end the bind), then killed.
    func testStoppedServerIsUnreachableWithinTimeout() throws {
        let server = try SlapdServer.start()
        defer { server.stop() }
        var configuration = server.configuration()
        configuration.timeoutSeconds = Self.timeoutSeconds
        let directory = LDAPDirectory(configuration: configuration)
        XCTAssertEqual(try directory.authenticate(user: "ana", password: "ana-password").userName, "ana")

        server.signal(SIGSTOP)
        assertUnreachable("timed out after 2 s") { try directory.authenticate(user: "ana", password: "ana-password") }

        server.signal(SIGKILL)
        waitUntilGone(pid: server.pid)
        // Depending on how far the kernel got tearing down slapd's sockets.
        assertUnreachable("connection refused", "connection reset by peer") {
            try directory.authenticate(user: "ana", password: "ana-password")
        }
    }

    private func waitUntilGone(pid: Int32) {
        for _ in 0..<50 where kill(pid, 0) == 0 && !isZombie(pid) {
            usleep(100_000)
        }
    }

    private func isZombie(_ pid: Int32) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return status.contains(") Z ")
    }
}
