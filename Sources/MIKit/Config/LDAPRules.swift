import Foundation

/// The rules for the `LDAP.*` settings, in one place: Config.plist's validation reports them
/// under their key, and the directory refuses a configuration that breaks one before connecting.
/// Each rule returns what is wrong (without the key), or nil.
public enum LDAPRules {
    /// The values `LDAP.GroupMemberAttribute` may take: DNs of a groupOfNames, or user names of a posixGroup.
    public static let memberAttributes = ["member", "memberUid"]
    /// The seconds `LDAP.TimeoutSeconds` may be: at least one, and short enough that a login
    /// against a dead directory still ends while someone waits for it.
    public static let timeoutRange = 1...300

    /// `LDAP.URL`: `ldap://` or `ldaps://`.
    public static func url(_ url: String) -> String? {
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard url.contains("://"), scheme == "ldap" || scheme == "ldaps" else {
            return "must start with ldap:// or ldaps://, found \"\(url)\""
        }
        return nil
    }

    /// `LDAP.StartTLS`: not with an `ldaps://` URL, which is TLS already.
    public static func startTLS(_ startTLS: Bool, url: String) -> String? {
        guard startTLS, url.lowercased().hasPrefix("ldaps://") else { return nil }
        return "cannot be used with an ldaps:// URL (it is TLS already): set it to false"
    }

    /// `LDAP.UserFilter`: an LDAP filter in parentheses with at least one `%s`. Every `%s` becomes
    /// the escaped user name, so `(|(uid=%s)(mail=%s))` lets people log in with either.
    public static func userFilter(_ filter: String) -> String? {
        guard filter.contains("%s") else {
            return "must contain %s where the user name goes, e.g. (&(objectClass=inetOrgPerson)(uid=%s))"
        }
        guard filter.hasPrefix("("), filter.hasSuffix(")") else {
            return "must be an LDAP filter in parentheses, e.g. (&(objectClass=inetOrgPerson)(uid=%s))"
        }
        return nil
    }

    /// `LDAP.GroupMemberAttribute`: one of `memberAttributes`.
    public static func groupMemberAttribute(_ attribute: String) -> String? {
        guard !memberAttributes.contains(attribute) else { return nil }
        return "must be \"member\" or \"memberUid\", found \"\(attribute)\""
    }

    /// `LDAP.TimeoutSeconds`: within `timeoutRange`.
    public static func timeoutSeconds(_ seconds: Int) -> String? {
        guard !timeoutRange.contains(seconds) else { return nil }
        return "must be between \(timeoutRange.lowerBound) and \(timeoutRange.upperBound), found \(seconds)"
    }
}

extension Configuration.LDAP {
    /// The service account's password from `BindPasswordFile` (the file's text without the
    /// newlines around it), or nil without a file. An unreadable file, or an empty
    /// password while `BindDN` is set (which would make the search an unauthenticated bind,
    /// RFC 4513 §5.1.2), is a configuration error naming the key.
    public func readBindPassword() throws(ConfigurationError) -> String? {
        guard let file = bindPasswordFile else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            let reason = FileManager.default.fileExists(atPath: file) ? "cannot be read" : "does not exist"
            throw ConfigurationError(url: nil, problems: [ConfigurationProblem(
                "LDAP.BindPasswordFile", "\(file) \(reason) — check the path, and that this user may read it")])
        }
        let password = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        if bindDN != nil, password.isEmpty {
            throw ConfigurationError(url: nil, problems: [ConfigurationProblem(
                "LDAP.BindPasswordFile", "\(file) is empty, but BindDN needs its password")])
        }
        return password
    }
}
