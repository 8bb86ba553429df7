import CLDAP
@testable import MIDirectory
import XCTest

/// RFC 4515 escaping of user names put into `LDAP.UserFilter`.
final class LDAPFilterTests: XCTestCase {
    func testEachReservedCharacterIsEscaped() {
        XCTAssertEqual(LDAPFilter.escape("*"), "\\2a")
        XCTAssertEqual(LDAPFilter.escape("("), "\\28")
        XCTAssertEqual(LDAPFilter.escape(")"), "\\29")
        XCTAssertEqual(LDAPFilter.escape("\\"), "\\5c")
        XCTAssertEqual(LDAPFilter.escape("\0"), "\\00")
    }

    func testOrdinaryCharactersPassUnchanged() {
        XCTAssertEqual(LDAPFilter.escape("o'brien.j-k"), "o'brien.j-k")
        XCTAssertEqual(LDAPFilter.escape("ana pérez, ñ=1;+<>#\"&|!~"), "ana pérez, ñ=1;+<>#\"&|!~")
        XCTAssertEqual(LDAPFilter.escape(""), "")
    }

    func testInjectionAttemptsBecomeLiteralValues() {
        XCTAssertEqual(LDAPFilter.escape("ana)(uid=*"), "ana\\29\\28uid=\\2a")
        XCTAssertEqual(LDAPFilter.escape("*)(|(uid=*"), "\\2a\\29\\28|\\28uid=\\2a")
        XCTAssertEqual(LDAPFilter.escape("\\2a"), "\\5c2a", "an escape typed by the user is itself escaped")
    }

    /// libldap's `ldap_bv2escaped_filter_value` also escapes non-ASCII bytes and writes
    /// upper-case hex; RFC 4515 allows both, so the two must denote the same value.
    func testEscapingDenotesTheSameValueAsLibldaps() {
        let samples = ["*", "ana)(uid=*", "*)(|(uid=*", "a\\b", "nul\0byte", "Pérez", "o'brien.j-k", "(((", ""]
        for sample in samples {
            let ours = LDAPFilter.escape(sample)
            XCTAssertEqual(unescape(ours), Array(sample.utf8), "for \(String(reflecting: sample))")
            XCTAssertEqual(unescape(ours), libldapEscape(sample).map(unescape), "for \(String(reflecting: sample))")
            XCTAssertFalse(ours.contains { "*()\0".contains($0) }, "unescaped reserved character in \(ours)")
        }
    }

    func testUserFilterReplacesEveryPlaceholderWithTheEscapedName() {
        XCTAssertEqual(
            LDAPFilter.user("a*", template: "(&(objectClass=inetOrgPerson)(|(uid=%s)(mail=%s)))"),
            "(&(objectClass=inetOrgPerson)(|(uid=a\\2a)(mail=a\\2a)))")
        XCTAssertEqual(LDAPFilter.user("%s", template: "(uid=%s)"), "(uid=%s)", "substitution is not recursive")
    }

    func testAllUsersFilterUsesAPresenceWildcard() {
        XCTAssertEqual(
            LDAPFilter.allUsers(template: "(&(objectClass=inetOrgPerson)(uid=%s))"),
            "(&(objectClass=inetOrgPerson)(uid=*))")
    }

    /// An RFC 4515 assertion value back to its bytes (`\\xx` → byte xx).
    private func unescape(_ escaped: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var input = Array(escaped.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "\\"), input.count >= 2,
                let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private func libldapEscape(_ value: String) -> String? {
        var bytes = Array(value.utf8)
        return bytes.withUnsafeMutableBytes { buffer -> String? in
            var input = berval(bv_len: ber_len_t(buffer.count), bv_val: buffer.baseAddress?.assumingMemoryBound(to: CChar.self))
            var output = berval()
            guard ldap_bv2escaped_filter_value(&input, &output) == LDAP_SUCCESS else { return nil }
            defer { ldap_memfree(output.bv_val) }
            return String(decoding: UnsafeRawBufferPointer(start: output.bv_val, count: Int(output.bv_len)), as: UTF8.self)
        }
    }
}
