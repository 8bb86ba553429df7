/// Builds search filters so that user input only ever enters one escaped (RFC 4515).
enum LDAPFilter {
    /// Escapes the characters RFC 4515 §3 reserves in an assertion value — `*` `(` `)` `\`
    /// and NUL become `\2a` `\28` `\29` `\5c` `\00` — so a user name can only ever be
    /// compared, never widen or restructure the filter. Other characters pass unchanged:
    /// the reserved ones are ASCII and never occur inside a UTF-8 multi-byte sequence.
    /// Same output as libldap's `ldap_bv2escaped_filter_value`.
    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "*": escaped += "\\2a"
            case "(": escaped += "\\28"
            case ")": escaped += "\\29"
            case "\\": escaped += "\\5c"
            case "\0": escaped += "\\00"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `template` (`LDAP.UserFilter`) with every `%s` replaced by the escaped user name.
    static func user(_ userName: String, template: String) -> String {
        template.replacing("%s", with: escape(userName))
    }

    /// `template` matching every user: `%s` becomes `*`, an unescaped presence wildcard.
    static func allUsers(template: String) -> String {
        template.replacing("%s", with: "*")
    }
}
