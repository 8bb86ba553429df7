/// What a user may do in MI, decided by membership of `LDAP.ForemanGroup`.
public enum Role: String, Sendable, Codable {
    /// Fills in forms.
    case technician
    /// A member of `LDAP.ForemanGroup`: reviews and assigns forms.
    case foreman
}

/// A person found in the directory.
public struct DirectoryUser: Sendable, Equatable, Codable {
    /// The user name as the directory spells it (its `uid`), not as it was typed.
    public var userName: String
    /// The entry's DN, as the directory returned it.
    public var dn: String
    /// `displayName`, else `cn`, else the user name.
    public var displayName: String
    /// Foreman when the user is in `LDAP.ForemanGroup`, else technician.
    public var role: Role

    /// Creates a user; `LDAPDirectory` makes these from directory entries.
    public init(userName: String, dn: String, displayName: String, role: Role) {
        self.userName = userName
        self.dn = dn
        self.displayName = displayName
        self.role = role
    }
}
