import MIKit

/// A person found in the directory.
public struct DirectoryUser: Sendable, Equatable, Codable {
    /// The user name as the directory spells it (its `uid`), not as it was typed.
    public var userName: String
    /// The entry's DN, as the directory returned it.
    public var dn: String
    /// `displayName`, else `cn`, else the user name.
    public var displayName: String
    /// Foreman when the user is in `LDAP.ForemanGroup`, else technician.
    public var role: Actor.Role

    /// Creates a user; `LDAPDirectory` makes these from directory entries.
    public init(userName: String, dn: String, displayName: String, role: Actor.Role) {
        self.userName = userName
        self.dn = dn
        self.displayName = displayName
        self.role = role
    }
}
