import CLDAP
import Foundation

/// Comparing DNs as the directory does, not as strings: `uid=Fiona, ou=People,dc=example`
/// and `uid=fiona,ou=people,dc=example` name the same entry.
enum DistinguishedName {
    /// `dn` parsed and printed again by libldap (spaces around separators dropped, escapes
    /// made uniform), then lowercased. A string libldap cannot parse is only trimmed and
    /// lowercased.
    static func normalized(_ dn: String) -> String {
        let trimmed = dn.trimmingCharacters(in: .whitespacesAndNewlines)
        var parsed: LDAPDN?
        guard ldap_str2dn(trimmed, &parsed, LDAP_DN_FORMAT_LDAPV3) == LDAP_SUCCESS, let parsed else {
            return trimmed.lowercased()
        }
        defer { ldap_dnfree(parsed) }
        var printed: UnsafeMutablePointer<CChar>?
        guard ldap_dn2str(parsed, &printed, LDAP_DN_FORMAT_LDAPV3) == LDAP_SUCCESS, let printed else {
            return trimmed.lowercased()
        }
        defer { ldap_memfree(printed) }
        return String(cString: printed).lowercased()
    }

    /// True when `first` and `second` name the same entry, ignoring case and spacing.
    static func same(_ first: String, _ second: String) -> Bool {
        normalized(first) == normalized(second)
    }
}
