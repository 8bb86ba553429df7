/// Who may publish templates in the office: the members of `LDAP.AdminGroup` when it is
/// configured, else the foremen. The one place this is decided, for the directory's users and
/// for the sessions the server signed.
public enum PublishRight {
    /// `adminGroupMember` is whether the user belongs to `LDAP.AdminGroup`; nil when that was
    /// not read (no group configured, or a session signed before the right was carried), which
    /// grants nothing once a group is configured.
    public static func allows(role: Actor.Role, adminGroupConfigured: Bool, adminGroupMember: Bool?) -> Bool {
        guard adminGroupConfigured else { return role == .foreman }
        return adminGroupMember ?? false
    }
}
