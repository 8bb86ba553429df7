import CLDAP
import Dispatch
import Glibc
@testable import MIDirectory
import Synchronization
import XCTest

/// Search-then-bind, roles and listing against a real slapd (scripts/slapd-test.sh) loaded
/// with scripts/fixtures/directory.ldif.
final class LDAPDirectoryTests: XCTestCase {
    private static let slapd = SlapdFixture()

    override class func setUp() {
        super.setUp()
        slapd.start()
    }

    override class func tearDown() {
        slapd.stop()
        super.tearDown()
    }

    private func server() throws -> SlapdServer {
        try Self.slapd.server()
    }

    /// The fixture's directory with `member` groups, optionally adjusted.
    private func directory(_ change: (inout DirectoryConfiguration) throws -> Void = { _ in }) throws -> LDAPDirectory {
        var configuration = try server().configuration()
        try change(&configuration)
        return LDAPDirectory(configuration: configuration)
    }

    /// The fixture's directory with the posixGroup and `memberUid`.
    private func posixDirectory() throws -> LDAPDirectory {
        let server = try server()
        return try directory {
            $0.foremanGroup = server.posixForemanGroup
            $0.groupMemberAttribute = "memberUid"
        }
    }

    // MARK: - Authentication

    func testRightPasswordLogsInTechnicianWithDisplayName() throws {
        let user = try directory().authenticate(user: "ana", password: "ana-password")
        XCTAssertEqual(user, DirectoryUser(
            userName: "ana", dn: "uid=ana,ou=people,dc=example,dc=test", displayName: "Ana Pérez", role: .technician))
    }

    func testDisplayNameAttributeIsPreferredToCN() throws {
        XCTAssertEqual(try directory().authenticate(user: "bob", password: "bob-password").displayName, "Bob Stone")
    }

    func testUserNameIsSpelledAsTheDirectorySpellsIt() throws {
        XCTAssertEqual(try directory().authenticate(user: "ANA", password: "ana-password").userName, "ana")
    }

    /// slapd matches `uid` after folding width and case: the fullwidth spelling is bob's
    /// account, and the session must be bob's, spelled as the directory spells it.
    func testAFullwidthSpellingSignsInAsTheDirectorysName() throws {
        XCTAssertEqual(try directory().authenticate(user: "ｂｏｂ", password: "bob-password").userName, "bob")
        XCTAssertEqual(try directory().authenticate(user: "ＢＯＢ", password: "bob-password").userName, "bob")
        XCTAssertEqual(try directory().lookup(user: "ｂｏｂ")?.userName, "bob")
    }

    func testWrongPasswordIsRefused() throws {
        assertThrows(.wrongUserNameOrPassword, try directory().authenticate(user: "ana", password: "bob-password"))
        assertThrows(.wrongUserNameOrPassword, try directory().authenticate(user: "ana", password: "ANA-PASSWORD"))
    }

    func testUnknownUserIsRefusedLikeAWrongPassword() throws {
        assertThrows(.wrongUserNameOrPassword, try directory().authenticate(user: "nobody", password: "ana-password"))
    }

    func testEmptyPasswordIsRefusedBeforeBinding() throws {
        assertThrows(.emptyPassword, try directory().authenticate(user: "ana", password: ""))
    }

    func testFilterInjectionAttemptsAreRefused() throws {
        let directory = try directory()
        for attempt in ["*", "ana)(uid=*", "*)(|(uid=*", "a*", "ana)(|(objectClass=*", "*)(uid=ana"] {
            assertThrows(.wrongUserNameOrPassword, try directory.authenticate(user: attempt, password: "ana-password"))
            XCTAssertNil(try directory.lookup(user: attempt), attempt)
        }
    }

    func testUserNameWithPunctuationLogsIn() throws {
        let user = try directory().authenticate(user: "o'brien.j-k", password: "obrien-password")
        XCTAssertEqual(user.userName, "o'brien.j-k")
        XCTAssertEqual(user.displayName, "Jack-Kevin O'Brien")
    }

    func testPasswordWithSpecialCharactersWorks() throws {
        let password = #"p*(a)\s,s=w;o"r+d<>#"#
        XCTAssertEqual(try directory().authenticate(user: "carla", password: password).userName, "carla")
        assertThrows(.wrongUserNameOrPassword, try directory().authenticate(user: "carla", password: "p*"))
    }

    func testUserOutsideTheBaseDNIsNotFound() throws {
        assertThrows(.wrongUserNameOrPassword, try directory().authenticate(user: "zed", password: "zed-password"))
        XCTAssertNil(try directory().lookup(user: "zed"))
    }

    func testFilterMatchingSeveralEntriesIsAConfigurationError() throws {
        let directory = try directory { $0.userFilter = "(&(objectClass=inetOrgPerson)(|(uid=%s)(uid=bob)))" }
        assertThrows(.ambiguousUser(user: "ana", entries: 2), try directory.authenticate(user: "ana", password: "ana-password"))
    }

    // MARK: - Roles

    func testForemanByMember() throws {
        XCTAssertEqual(try directory().authenticate(user: "fiona", password: "fiona-password").role, .foreman)
    }

    func testForemanByMemberUid() throws {
        XCTAssertEqual(try posixDirectory().authenticate(user: "gus", password: "gus-password").role, .foreman)
        XCTAssertEqual(try posixDirectory().authenticate(user: "fiona", password: "fiona-password").role, .technician)
    }

    func testTechnicianIsNotForeman() throws {
        XCTAssertEqual(try directory().authenticate(user: "bob", password: "bob-password").role, .technician)
        XCTAssertEqual(try directory().authenticate(user: "gus", password: "gus-password").role, .technician)
        XCTAssertEqual(try posixDirectory().authenticate(user: "bob", password: "bob-password").role, .technician)
    }

    func testForemanGroupOutsideTheUserBase() throws {
        let server = try server()
        XCTAssertFalse(server.foremanGroup.hasSuffix(server.baseDN))
        XCTAssertFalse(server.posixForemanGroup.hasSuffix(server.baseDN))
        XCTAssertEqual(try directory().lookup(user: "fiona")?.role, .foreman)
        XCTAssertEqual(try posixDirectory().lookup(user: "gus")?.role, .foreman)
    }

    /// fiona may not read the group (ACL), yet is a foreman: the service account read it.
    func testGroupIsReadWithTheServiceAccountNotTheUser() throws {
        let server = try server()
        let asFiona = try LDAPConnection(url: server.url, caFile: nil, timeoutSeconds: 5)
        try asFiona.bind(dn: "uid=fiona,ou=people,dc=example,dc=test", password: "fiona-password")
        XCTAssertThrowsError(
            try asFiona.search(base: server.foremanGroup, scope: .base, filter: "(objectClass=*)", attributes: ["member"])
        ) { error in
            XCTAssertEqual((error as? LDAPStatus)?.code, LDAP_NO_SUCH_OBJECT)
        }
        XCTAssertEqual(try directory().authenticate(user: "fiona", password: "fiona-password").role, .foreman)
    }

    func testMissingForemanGroupNamesTheConfiguredDN() throws {
        let missing = "cn=nobody,ou=groups,dc=corp,dc=test"
        let error = assertDirectoryError(
            try directory { $0.foremanGroup = missing }.authenticate(user: "ana", password: "ana-password"))
        guard case .foremanGroupNotFound(let dn, _) = error else {
            return XCTFail("expected .foremanGroupNotFound, got \(String(describing: error))")
        }
        XCTAssertEqual(dn, missing)
        XCTAssertTrue(error?.errorDescription?.contains(missing) ?? false)
    }

    // MARK: - Template publishers

    func testWithoutAdminGroupForemenMayPublish() throws {
        let fiona = try directory().authenticate(user: "fiona", password: "fiona-password")
        XCTAssertNil(fiona.adminGroupMember)
        XCTAssertTrue(fiona.mayPublish)
        XCTAssertFalse(try directory().authenticate(user: "bob", password: "bob-password").mayPublish)
    }

    func testAdminGroupMembersMayPublish() throws {
        let server = try server()
        let directory = try directory { $0.adminGroup = server.foremanGroup }
        let fiona = try directory.authenticate(user: "fiona", password: "fiona-password")
        XCTAssertEqual(fiona.adminGroupMember, true)
        XCTAssertTrue(fiona.mayPublish)
        let bob = try XCTUnwrap(directory.lookup(user: "bob"))
        XCTAssertEqual(bob.adminGroupMember, false)
        XCTAssertFalse(bob.mayPublish)
    }

    /// The posixGroup has no `member` values: fiona stays a foreman but may not publish.
    func testForemanOutsideTheAdminGroupMayNotPublish() throws {
        let server = try server()
        let fiona = try directory { $0.adminGroup = server.posixForemanGroup }
            .authenticate(user: "fiona", password: "fiona-password")
        XCTAssertEqual(fiona.role, .foreman)
        XCTAssertEqual(fiona.adminGroupMember, false)
        XCTAssertFalse(fiona.mayPublish)
    }

    func testMissingAdminGroupNamesTheConfiguredDN() throws {
        let missing = "cn=publishers,ou=groups,dc=corp,dc=test"
        let error = assertDirectoryError(
            try directory { $0.adminGroup = missing }.authenticate(user: "ana", password: "ana-password"))
        guard case .adminGroupNotFound(let dn, _) = error else {
            return XCTFail("expected .adminGroupNotFound, got \(String(describing: error))")
        }
        XCTAssertEqual(dn, missing)
        XCTAssertEqual(error?.code, "directory-admin-group-not-found")
        XCTAssertTrue(error?.errorDescription?.contains("LDAP.AdminGroup") ?? false)
    }

    // MARK: - Lookup and listing

    func testLookupFindsUserWithRoleWithoutPassword() throws {
        let user = try directory().lookup(user: "fiona")
        XCTAssertEqual(user, DirectoryUser(
            userName: "fiona", dn: "uid=fiona,ou=people,dc=example,dc=test", displayName: "Fiona Grant", role: .foreman))
    }

    func testLookupOfUnknownUserIsNil() throws {
        XCTAssertNil(try directory().lookup(user: "nobody"))
    }

    func testListUsersReturnsAllSixPeopleWithRoles() throws {
        let users = try directory().listUsers()
        XCTAssertEqual(users.map(\.userName), ["ana", "bob", "carla", "fiona", "gus", "o'brien.j-k"])
        XCTAssertEqual(users.filter { $0.role == .foreman }.map(\.userName), ["fiona"])
        XCTAssertEqual(users.first?.displayName, "Ana Pérez")
        let posixUsers = try posixDirectory().listUsers()
        XCTAssertEqual(posixUsers.filter { $0.role == .foreman }.map(\.userName), ["gus"])
    }

    /// The base holds a referral to a port this test listens on: nobody may call it. (A
    /// client that chased it would wait for an answer, so callers are hung up on at once.)
    func testReferralsAreNotChased() throws {
        let listener = try XCTUnwrap(TCPEndpoints.listener(port: try server().referralPort))
        defer { close(listener) }
        let directory = try directory()
        let outcome = Mutex<Result<[Int], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result {
                [try directory.listUsers().count, try directory.lookup(user: "ana") == nil ? 0 : 1]
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        var callers = 0
        while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if TCPEndpoints.hasCaller(listener) { callers += 1 }
        }
        if TCPEndpoints.hasCaller(listener) { callers += 1 }
        XCTAssertEqual(callers, 0, "a referral was followed")
        XCTAssertEqual(try outcome.withLock { try $0?.get() }, [6, 1])
    }

    // MARK: - Configuration problems

    func testWrongServiceAccountPasswordIsAClearError() throws {
        let server = try server()
        let error = assertDirectoryError(
            try directory { $0.bindPassword = "wrong" }.authenticate(user: "ana", password: "ana-password"))
        guard case .serviceAccountRefused(let bindDN, let status) = error else {
            return XCTFail("expected .serviceAccountRefused, got \(String(describing: error))")
        }
        XCTAssertEqual(bindDN, server.bindDN)
        XCTAssertEqual(status.code, LDAP_INVALID_CREDENTIALS)
        XCTAssertTrue(error?.errorDescription?.hasPrefix("the service account (LDAP.BindDN) was refused: ") ?? false)
    }

    func testAnonymousSearchRefusedByTheServerIsAClearError() throws {
        let error = assertDirectoryError(try directory {
            $0.bindDN = nil
            $0.bindPassword = nil
        }.lookup(user: "ana"))
        guard case .anonymousBindRefused(let status) = error else {
            return XCTFail("expected .anonymousBindRefused, got \(String(describing: error))")
        }
        XCTAssertEqual(status.code, LDAP_INAPPROPRIATE_AUTH)
        XCTAssertEqual(status.diagnostic, "anonymous bind disallowed")
    }

    func testInvalidUserFilterIsAConfigurationError() throws {
        let error = assertDirectoryError(try directory { $0.userFilter = "(uid=%s" }.lookup(user: "ana"))
        guard case .invalidConfiguration(let problem) = error else {
            return XCTFail("expected .invalidConfiguration, got \(String(describing: error))")
        }
        XCTAssertTrue(problem.contains("LDAP.UserFilter"), problem)
    }

    func testMissingBaseDNIsAConfigurationError() throws {
        let error = assertDirectoryError(try directory { $0.baseDN = "ou=nowhere,dc=example,dc=test" }.lookup(user: "ana"))
        guard case .invalidConfiguration(let problem) = error else {
            return XCTFail("expected .invalidConfiguration, got \(String(describing: error))")
        }
        XCTAssertTrue(problem.contains("LDAP.BaseDN"), problem)
    }

    func testStartTLSAgainstServerWithoutTLSIsRefused() throws {
        let error = assertDirectoryError(
            try directory { $0.startTLS = true }.authenticate(user: "ana", password: "ana-password"))
        guard case .startTLSFailed(let url, let status) = error else {
            return XCTFail("expected .startTLSFailed, got \(String(describing: error))")
        }
        XCTAssertEqual(url, try server().url)
        XCTAssertEqual(status.code, LDAP_PROTOCOL_ERROR)
        XCTAssertEqual(status.diagnostic, "unsupported extended operation")
        XCTAssertTrue(error?.errorDescription?.contains("set LDAP.StartTLS to false") ?? false)
    }

    // MARK: - Resources

    /// Every operation closes its connections (deinit unbinds) and frees its results and
    /// values: neither descriptors nor heap grow over many operations.
    func testRepeatedOperationsLeakNeitherConnectionsNorMemory() throws {
        let directory = try directory()
        func exercise(_ rounds: Int) throws {
            for _ in 0..<rounds {
                _ = try directory.authenticate(user: "fiona", password: "fiona-password")
                _ = try directory.lookup(user: "nobody")
                _ = try directory.listUsers()
                _ = try? directory.authenticate(user: "ana", password: "wrong")
            }
        }
        // Leaving out one ldap_msgfree grows it by ~1.5 MB, one ldap_value_free_len by ~0.6 MB.
        try exercise(50)  // warm up caches, lazy globals and malloc's arenas
        let descriptors = openDescriptorCount()
        let resident = residentBytes()
        try exercise(300)
        XCTAssertEqual(openDescriptorCount(), descriptors, "connections left open")
        let growth = residentBytes() - resident
        XCTAssertLessThan(growth, 256 * 1024, "resident memory grew by \(growth) bytes over 1200 operations")
    }

    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Resident set size from /proc/self/statm (its second field, in pages).
    private func residentBytes() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
