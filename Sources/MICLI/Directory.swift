import Foundation
import MIDirectory
import MIKit

/// The organisation's directory, as Config.plist describes it.
enum Directory {
    static func service(_ configuration: Configuration) throws -> any DirectoryService {
        let ldap = configuration.ldap
        var bindPassword: String?
        if let file = ldap.bindPasswordFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError(url: nil, problems: [ConfigurationProblem("LDAP.BindPasswordFile", "cannot read \(file) — check that it exists and this user may read it")])
            }
            bindPassword = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        }
        return LDAPDirectory(configuration: DirectoryConfiguration(
            url: ldap.url, startTLS: ldap.startTLS, caFile: ldap.caFile, baseDN: ldap.baseDN,
            userFilter: ldap.userFilter, bindDN: ldap.bindDN, bindPassword: bindPassword,
            foremanGroup: ldap.foremanGroup, groupMemberAttribute: ldap.groupMemberAttribute,
            timeoutSeconds: ldap.timeoutSeconds))
    }

    static func role(_ role: MIDirectory.Role) -> Actor.Role {
        role == .foreman ? .foreman : .technician
    }
}
