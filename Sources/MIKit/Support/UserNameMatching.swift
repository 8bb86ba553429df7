import Foundation

/// User names as the directory compares them. LDAP matches `uid` with `caseIgnoreMatch` after
/// the string preparation of RFC 4518: compatibility forms folded (NFKC: the fullwidth
/// `ｄｍｉｔｒｉ` is `dmitri`), case ignored, and spaces at the ends and runs of spaces inside
/// insignificant. So every spelling of one account must count as one wherever MI keys
/// something by a name a person typed (the failed sign-ins per user, above all); everything
/// after a successful sign-in uses the directory's own spelling of the name instead.
public enum UserNameMatching {
    /// The one key of every spelling of `name` the directory takes for the same account.
    public static func key(_ name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCompatibilityMapping
        return folded.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Whether the directory takes `a` and `b` for the same user name.
    public static func same(_ a: String, _ b: String) -> Bool { key(a) == key(b) }
}
