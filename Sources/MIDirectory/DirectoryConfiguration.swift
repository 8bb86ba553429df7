import Foundation
import MIKit

/// Where the directory is and how users and foremen are found in it: Config.plist's `LDAP`
/// settings (`Configuration.LDAP`, read and typed by MIKit) and the service account's password.
/// The settings' fields read as this type's own (`configuration.url`, `.userFilter`…).
@dynamicMemberLookup
public struct DirectoryConfiguration: Sendable {
    /// The `LDAP.*` keys of Config.plist.
    public var settings: Configuration.LDAP
    /// The service account's password, read from `LDAP.BindPasswordFile`.
    public var bindPassword: String?

    /// `settings` with the password already read; nothing is checked or contacted until the
    /// first operation.
    public init(settings: Configuration.LDAP, bindPassword: String?) {
        self.settings = settings
        self.bindPassword = bindPassword
    }

    /// Creates a configuration from each setting (tests and tools that have no Config.plist).
    public init(url: String, startTLS: Bool, caFile: String?, baseDN: String, userFilter: String, bindDN: String?,
                bindPassword: String?, foremanGroup: String, adminGroup: String? = nil,
                groupMemberAttribute: String, timeoutSeconds: Int) {
        self.init(settings: Configuration.LDAP(url: url, startTLS: startTLS, caFile: caFile, baseDN: baseDN,
                                               userFilter: userFilter, bindDN: bindDN, bindPasswordFile: nil,
                                               foremanGroup: foremanGroup, adminGroup: adminGroup,
                                               groupMemberAttribute: groupMemberAttribute,
                                               timeoutSeconds: timeoutSeconds),
                  bindPassword: bindPassword)
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Configuration.LDAP, Value>) -> Value {
        get { settings[keyPath: keyPath] }
        set { settings[keyPath: keyPath] = newValue }
    }
}

extension DirectoryConfiguration {
    /// The directory Config.plist's `LDAP` section describes, with the service account's
    /// password read from `LDAP.BindPasswordFile`. Throws when that file cannot be read.
    public init(_ ldap: Configuration.LDAP) throws(ConfigurationError) {
        self.init(settings: ldap, bindPassword: try ldap.readBindPassword())
    }

    /// Refuses settings that would fail later with a confusing LDAP error, or silently weaken
    /// security (an empty service password is an unauthenticated bind, RFC 4513 §5.1.2). The
    /// rules are Config.plist's own (`LDAPRules`), so a configuration that passes
    /// `mi config check` passes here.
    func validate() throws(DirectoryError) {
        let broken: [(String, String?)] = [
            ("URL", LDAPRules.url(settings.url)),
            ("StartTLS", LDAPRules.startTLS(settings.startTLS, url: settings.url)),
            ("UserFilter", LDAPRules.userFilter(settings.userFilter)),
            ("GroupMemberAttribute", LDAPRules.groupMemberAttribute(settings.groupMemberAttribute)),
            ("TimeoutSeconds", LDAPRules.timeoutSeconds(settings.timeoutSeconds)),
        ]
        if let (key, problem) = broken.first(where: { $0.1 != nil }), let problem {
            throw .invalidConfiguration("LDAP.\(key) \(problem)")
        }
        if let caFile = settings.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .invalidConfiguration("LDAP.CAFile \"\(caFile)\" is not a readable file")
        }
        if settings.bindDN != nil, bindPassword?.isEmpty ?? true {
            throw .invalidConfiguration("LDAP.BindDN is set but LDAP.BindPasswordFile gives no password")
        }
    }
}
