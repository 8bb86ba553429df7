import MIDirectory
import XCTest

/// What the user typed is checked before any connection: these configurations point at a
/// closed port, so any connection attempt would end in `.unreachable` instead.
final class LoginInputTests: XCTestCase {
    private let directory = LDAPDirectory(configuration: DirectoryConfiguration(
        url: TCPEndpoints.closedPortURL(), startTLS: false, caFile: nil, baseDN: "dc=example,dc=test",
        userFilter: "(uid=%s)", bindDN: "cn=mi-service,dc=example,dc=test", bindPassword: "secret",
        foremanGroup: "cn=foremen,ou=groups,dc=corp,dc=test", groupMemberAttribute: "member", timeoutSeconds: 2))

    func testEmptyPasswordIsRefusedWithoutContactingTheServer() {
        assertThrows(.emptyPassword, try directory.authenticate(user: "ana", password: ""))
    }

    func testInvalidUserNamesAreRefusedWithoutContactingTheServer() {
        let tooLong = String(repeating: "a", count: 257)
        for name in ["", tooLong, "ana\0", "ana\n", "a\u{7f}", "a\u{85}b", "\tana", "ou=people/ana", "../ana"] {
            assertThrows(.invalidUserName(name), try directory.authenticate(user: name, password: "secret"))
            assertThrows(.invalidUserName(name), try directory.lookup(user: name))
        }
    }

    func testUserNameOf256BytesIsAccepted() {
        // 128 two-byte characters: 256 bytes, allowed; the closed port proves it got that far.
        let name = String(repeating: "é", count: 128)
        guard case .unreachable = assertDirectoryError(try directory.authenticate(user: name, password: "x")) else {
            return XCTFail("expected the name to pass the checks and the connection to fail")
        }
        assertThrows(.invalidUserName(name + "a"), try directory.authenticate(user: name + "a", password: "x"))
    }

    func testInvalidUserNameMessageShowsControlCharacters() {
        let message = DirectoryError.invalidUserName("ana\n").errorDescription ?? ""
        XCTAssertTrue(message.hasPrefix("user name \"ana\\n\" is not a valid directory name"), message)
    }
}
