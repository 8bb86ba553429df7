import Foundation
import MIDirectory
import MIKit
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

    /// The same range as Config.plist's check (`LDAPRules.timeoutRange`).
    func testTimeoutMustBeOneToThreeHundredSeconds() {
        assertRefused({ $0.timeoutSeconds = 0 }, naming: "LDAP.TimeoutSeconds")
        assertRefused({ $0.timeoutSeconds = 301 }, naming: "LDAP.TimeoutSeconds")
    }

    /// The same rule as Config.plist's check: parentheses, and `%s` as often as the filter needs it.
    func testUserFilterRulesAreConfigPlists() {
        assertRefused({ $0.userFilter = "uid=%s" }, naming: "LDAP.UserFilter")
        var twice = valid()
        twice.userFilter = "(|(uid=%s)(mail=%s))"
        guard case .unreachable = assertDirectoryError(try LDAPDirectory(configuration: twice).lookup(user: "ana")) else {
            return XCTFail("a filter with two %s must get as far as connecting")
        }
    }

    // MARK: - From Config.plist's LDAP section

    private func settings(bindPasswordFile: String?) -> Configuration.LDAP {
        Configuration.LDAP(url: "ldap://127.0.0.1:389", startTLS: false, caFile: nil, baseDN: "dc=example,dc=test",
                           userFilter: "(uid=%s)", bindDN: "cn=mi-service,dc=example,dc=test",
                           bindPasswordFile: bindPasswordFile, foremanGroup: "cn=foremen,dc=example,dc=test",
                           groupMemberAttribute: "memberUid", timeoutSeconds: 7)
    }

    func testConfigurationFromLDAPSettingsReadsTheBindPasswordFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mi-bind-\(UUID().uuidString).pw")
        try Data("secret\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try DirectoryConfiguration(settings(bindPasswordFile: file.path))
        XCTAssertEqual(configuration.bindPassword, "secret")
        XCTAssertEqual(configuration.bindDN, "cn=mi-service,dc=example,dc=test")
        XCTAssertEqual(configuration.groupMemberAttribute, "memberUid")
        XCTAssertEqual(configuration.timeoutSeconds, 7)
    }

    func testMissingBindPasswordFileIsAConfigurationError() {
        XCTAssertThrowsError(try DirectoryConfiguration(settings(bindPasswordFile: "/nonexistent/bind.pw"))) { error in
            XCTAssertEqual((error as? ConfigurationError)?.problems.map(\.keyPath), ["LDAP.BindPasswordFile"])
            XCTAssertEqual((error as? ConfigurationError)?.failureClass, .configuration)
        }
    }
}

/// Every case has the class that decides `mi`'s exit status, and a stable code.
final class DirectoryErrorClassTests: XCTestCase {
    private let status = LDAPStatus(code: -1, message: "Can't contact LDAP server", diagnostic: "")

    /// One value of every case (DirectoryErrorMessageTests checks their messages).
    static let everyCase: [DirectoryError] = {
        let status = LDAPStatus(code: -5, message: "Timed out", diagnostic: "")
        return [
            .invalidUserName("a/b"), .emptyPassword, .wrongUserNameOrPassword,
            .unreachable(url: "ldap://x", reason: "connection refused", status: status),
            .startTLSFailed(url: "ldap://x", status: status), .tlsHandshakeFailed(url: "ldaps://x", status: status),
            .serviceAccountRefused(bindDN: "cn=svc", status: status), .anonymousBindRefused(status: status),
            .ambiguousUser(user: "ana", entries: 2), .foremanGroupNotFound(dn: "cn=g", status: nil),
            .adminGroupNotFound(dn: "cn=a", status: nil),
            .invalidConfiguration("LDAP.URL is wrong"), .operationFailed(operation: "search", status: status),
        ]
    }()

    func testWrongCredentialsAreNotPermitted() {
        for error: DirectoryError in [.wrongUserNameOrPassword, .emptyPassword, .invalidUserName("a/b")] {
            XCTAssertEqual(error.failureClass, .notPermitted, "\(error)")
        }
        XCTAssertEqual(DirectoryError.wrongUserNameOrPassword.code, "wrong-credentials")
    }

    func testAnUnreachableDirectoryIsTemporary() {
        let error = DirectoryError.unreachable(url: "ldap://x", reason: "connection refused", status: status)
        XCTAssertEqual(error.failureClass, .unreachable)
        XCTAssertEqual(error.failureClass.exitCode, 75)
        XCTAssertEqual(error.code, "directory-unreachable")
    }

    func testTLSAndSettingsProblemsAreConfiguration() {
        let errors: [DirectoryError] = [
            .startTLSFailed(url: "ldap://x", status: status), .tlsHandshakeFailed(url: "ldaps://x", status: status),
            .serviceAccountRefused(bindDN: "cn=svc", status: status), .anonymousBindRefused(status: status),
            .ambiguousUser(user: "ana", entries: 2), .foremanGroupNotFound(dn: "cn=g", status: nil),
            .adminGroupNotFound(dn: "cn=a", status: nil), .invalidConfiguration("LDAP.URL is wrong"),
        ]
        for error in errors { XCTAssertEqual(error.failureClass, .configuration, "\(error)") }
    }

    func testOtherRefusalsAreRefused() {
        XCTAssertEqual(DirectoryError.operationFailed(operation: "search", status: status).failureClass, .refused)
    }

    func testCodesAreDistinctKebabCase() {
        let errors = Self.everyCase
        XCTAssertEqual(Set(errors.map(\.code)).count, errors.count)
        for error in errors {
            XCTAssertNotNil(error.code.range(of: "^[a-z]+(-[a-z]+)*$", options: .regularExpression), error.code)
        }
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
        let errors = DirectoryErrorClassTests.everyCase
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
