import Foundation

/// Where the directory is and how users and foremen are found in it: the `LDAP.*` keys of
/// Config.plist, already read and typed by the caller.
public struct DirectoryConfiguration: Sendable {
    /// `ldap://host:port` or `ldaps://host:port`.
    public var url: String
    /// Upgrade an `ldap://` connection with StartTLS; a server that refuses is an error.
    public var startTLS: Bool
    /// PEM file of the CA that signed the directory's certificate; the system's CAs when nil.
    public var caFile: String?
    /// Where users are searched (subtree).
    public var baseDN: String
    /// Filter finding one user, e.g. `(&(objectClass=inetOrgPerson)(uid=%s))`; every `%s`
    /// becomes the user name escaped per RFC 4515.
    public var userFilter: String
    /// The service account used to search; anonymous when nil.
    public var bindDN: String?
    /// The service account's password, read by the caller from `LDAP.BindPasswordFile`.
    public var bindPassword: String?
    /// DN of the foremen's group; it may live outside `baseDN`.
    public var foremanGroup: String
    /// `member` (DNs, groupOfNames) or `memberUid` (user names, posixGroup).
    public var groupMemberAttribute: String
    /// Limit for connecting and for each operation, in seconds.
    public var timeoutSeconds: Int

    /// Creates a configuration; nothing is checked or contacted until the first operation.
    public init(
        url: String,
        startTLS: Bool,
        caFile: String?,
        baseDN: String,
        userFilter: String,
        bindDN: String?,
        bindPassword: String?,
        foremanGroup: String,
        groupMemberAttribute: String,
        timeoutSeconds: Int
    ) {
        self.url = url
        self.startTLS = startTLS
        self.caFile = caFile
        self.baseDN = baseDN
        self.userFilter = userFilter
        self.bindDN = bindDN
        self.bindPassword = bindPassword
        self.foremanGroup = foremanGroup
        self.groupMemberAttribute = groupMemberAttribute
        self.timeoutSeconds = timeoutSeconds
    }
}

extension DirectoryConfiguration {
    static let memberAttributes = ["member", "memberUid"]

    /// Refuses settings that would fail later with a confusing LDAP error, or silently weaken
    /// security (an empty service password is an unauthenticated bind, RFC 4513 §5.1.2).
    func validate() throws(DirectoryError) {
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard url.contains("://"), scheme == "ldap" || scheme == "ldaps" else {
            throw .invalidConfiguration("LDAP.URL \"\(url)\" must start with ldap:// or ldaps://")
        }
        if startTLS && scheme == "ldaps" {
            throw .invalidConfiguration("LDAP.StartTLS must be false with an ldaps:// LDAP.URL (TLS already)")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .invalidConfiguration("LDAP.CAFile \"\(caFile)\" is not a readable file")
        }
        guard userFilter.contains("%s") else {
            throw .invalidConfiguration("LDAP.UserFilter \"\(userFilter)\" has no %s for the user name")
        }
        guard Self.memberAttributes.contains(groupMemberAttribute) else {
            throw .invalidConfiguration(
                "LDAP.GroupMemberAttribute \"\(groupMemberAttribute)\" must be member or memberUid")
        }
        if bindDN != nil, bindPassword?.isEmpty ?? true {
            throw .invalidConfiguration("LDAP.BindDN is set but LDAP.BindPasswordFile gives no password")
        }
        guard timeoutSeconds > 0 else {
            throw .invalidConfiguration("LDAP.TimeoutSeconds must be at least 1, not \(timeoutSeconds)")
        }
    }
}
