import Foundation
import MIKit

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
    /// The directory Config.plist's `LDAP` section describes, with the service account's
    /// password read from `LDAP.BindPasswordFile`. Throws when that file cannot be read.
    public init(_ ldap: Configuration.LDAP) throws(ConfigurationError) {
        self.init(url: ldap.url, startTLS: ldap.startTLS, caFile: ldap.caFile, baseDN: ldap.baseDN,
                  userFilter: ldap.userFilter, bindDN: ldap.bindDN, bindPassword: try ldap.readBindPassword(),
                  foremanGroup: ldap.foremanGroup, groupMemberAttribute: ldap.groupMemberAttribute,
                  timeoutSeconds: ldap.timeoutSeconds)
    }

    /// Refuses settings that would fail later with a confusing LDAP error, or silently weaken
    /// security (an empty service password is an unauthenticated bind, RFC 4513 §5.1.2). The
    /// rules are Config.plist's own (`LDAPRules`), so a configuration that passes
    /// `mi config check` passes here.
    func validate() throws(DirectoryError) {
        let broken: [(String, String?)] = [
            ("URL", LDAPRules.url(url)),
            ("StartTLS", LDAPRules.startTLS(startTLS, url: url)),
            ("UserFilter", LDAPRules.userFilter(userFilter)),
            ("GroupMemberAttribute", LDAPRules.groupMemberAttribute(groupMemberAttribute)),
            ("TimeoutSeconds", LDAPRules.timeoutSeconds(timeoutSeconds)),
        ]
        if let (key, problem) = broken.first(where: { $0.1 != nil }), let problem {
            throw .invalidConfiguration("LDAP.\(key) \(problem)")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .invalidConfiguration("LDAP.CAFile \"\(caFile)\" is not a readable file")
        }
        if bindDN != nil, bindPassword?.isEmpty ?? true {
            throw .invalidConfiguration("LDAP.BindDN is set but LDAP.BindPasswordFile gives no password")
        }
    }
}
