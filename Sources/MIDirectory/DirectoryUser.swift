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
    /// Whether the user is in `LDAP.AdminGroup`; nil when none is configured.
    public var adminGroupMember: Bool?

    /// Creates a user; `LDAPDirectory` makes these from directory entries.
    public init(userName: String, dn: String, displayName: String, role: Actor.Role, adminGroupMember: Bool? = nil) {
        self.userName = userName
        self.dn = dn
        self.displayName = displayName
        self.role = role
        self.adminGroupMember = adminGroupMember
    }

    /// Whether the user may publish templates (`PublishRight`).
    public var mayPublish: Bool {
        PublishRight.allows(role: role, adminGroupConfigured: adminGroupMember != nil, adminGroupMember: adminGroupMember)
    }
}
