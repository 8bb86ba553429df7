import MIDirectory
import XCTest

/// Settings that cannot work are refused before any connection, naming the Config.plist key.
final class DirectoryConfigurationTests: XCTestCase {
    private func valid() -> DirectoryConfiguration {
        DirectoryConfiguration(
            url: TCPEndpoints.closedPortURL(), startTLS: false, caFile: nil, baseDN: "dc=example,dc=test",
            userFilter: "(uid=%s)", bindDN: "cn=mi-service,dc=example,dc=test", bindPassword: "secret",
            foremanGroup: "cn=foremen,ou=groups,dc=corp,dc=test", groupMemberAttribute: "member", timeoutSeconds: 2)
    }

    private func assertRefused(
        _ change: (inout DirectoryConfiguration) -> Void, naming key: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        var configuration = valid()
        change(&configuration)
        let error = assertDirectoryError(
            try LDAPDirectory(configuration: configuration).lookup(user: "ana"), file: file, line: line)
        guard case .invalidConfiguration(let problem) = error else {
            return XCTFail("expected .invalidConfiguration, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertTrue(problem.contains(key), "\(problem) should name \(key)", file: file, line: line)
    }

    func testValidConfigurationGetsAsFarAsConnecting() {
        guard case .unreachable = assertDirectoryError(try LDAPDirectory(configuration: valid()).lookup(user: "ana")) else {
            return XCTFail("expected .unreachable from the closed port")
        }
    }

    func testURLMustBeLDAPOrLDAPS() {
        assertRefused({ $0.url = "http://127.0.0.1:389" }, naming: "LDAP.URL")
        assertRefused({ $0.url = "ldapi:///var/run/slapd.sock" }, naming: "LDAP.URL")
        assertRefused({ $0.url = "127.0.0.1:389" }, naming: "LDAP.URL")
    }

    func testStartTLSOnLDAPSIsRefused() {
        assertRefused({ $0.url = "ldaps://127.0.0.1:636"; $0.startTLS = true }, naming: "LDAP.StartTLS")
    }

    func testMissingCAFileIsRefused() {
        assertRefused({ $0.caFile = "/nonexistent/ca.pem" }, naming: "LDAP.CAFile")
    }

    func testUserFilterNeedsPlaceholder() {
        assertRefused({ $0.userFilter = "(uid=ana)" }, naming: "LDAP.UserFilter")
    }

    func testGroupMemberAttributeMustBeMemberOrMemberUid() {
        assertRefused({ $0.groupMemberAttribute = "uniqueMember" }, naming: "LDAP.GroupMemberAttribute")
    }

    func testBindDNWithoutPasswordIsRefused() {
        // An empty password would make the service bind an unauthenticated one.
        assertRefused({ $0.bindPassword = "" }, naming: "LDAP.BindPasswordFile")
        assertRefused({ $0.bindPassword = nil }, naming: "LDAP.BindPasswordFile")
    }

    func testTimeoutMustBePositive() {
        assertRefused({ $0.timeoutSeconds = 0 }, naming: "LDAP.TimeoutSeconds")
    }
}

/// Each message says what happened and what to do, in one sentence.
final class DirectoryErrorMessageTests: XCTestCase {
    private let status = LDAPStatus(code: -5, message: "Timed out", diagnostic: "")

    func testUnreachableMessage() {
        let error = DirectoryError.unreachable(url: "ldap://127.0.0.1:3899", reason: "timed out after 5 s", status: status)
        XCTAssertTrue(
            error.errorDescription?.hasPrefix("directory unreachable at ldap://127.0.0.1:3899: timed out after 5 s — ") ?? false,
            error.errorDescription ?? "")
    }

    func testStartTLSMessageCarriesTheServersDiagnostic() {
        let refused = LDAPStatus(code: 2, message: "Protocol error", diagnostic: "unsupported extended operation")
        XCTAssertEqual(
            DirectoryError.startTLSFailed(url: "ldap://dir:389", status: refused).errorDescription,
            "StartTLS failed at ldap://dir:389: unsupported extended operation (2) — the directory must offer TLS, or set LDAP.StartTLS to false")
    }

    func testEveryMessageIsOneSentenceWithAnAction() {
        let errors: [DirectoryError] = [
            .invalidUserName("a/b"), .emptyPassword, .wrongUserNameOrPassword,
            .unreachable(url: "ldap://x", reason: "connection refused", status: status),
            .startTLSFailed(url: "ldap://x", status: status), .tlsHandshakeFailed(url: "ldaps://x", status: status),
            .serviceAccountRefused(bindDN: "cn=svc", status: status), .anonymousBindRefused(status: status),
            .ambiguousUser(user: "ana", entries: 2), .foremanGroupNotFound(dn: "cn=g", status: nil),
            .invalidConfiguration("LDAP.URL is wrong"), .operationFailed(operation: "search", status: status),
        ]
        for error in errors {
            let message = error.errorDescription ?? ""
            XCTAssertTrue(message.contains(" — "), "no advice in: \(message)")
            XCTAssertFalse(message.contains("\n"), message)
            XCTAssertFalse(message.dropLast().contains(". "), "more than one sentence: \(message)")
        }
        XCTAssertEqual(DirectoryError.wrongUserNameOrPassword.errorDescription?.hasPrefix("wrong user name or password"), true)
        XCTAssertEqual(DirectoryError.emptyPassword.errorDescription?.hasPrefix("empty password"), true)
        XCTAssertEqual(
            DirectoryError.serviceAccountRefused(bindDN: "cn=svc", status: status).errorDescription?
                .hasPrefix("the service account (LDAP.BindDN) was refused: "), true)
        XCTAssertTrue(DirectoryError.foremanGroupNotFound(dn: "cn=g,dc=t", status: nil).errorDescription?.contains("cn=g,dc=t") ?? false)
    }
}
