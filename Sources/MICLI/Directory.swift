import Foundation
import MIDirectory
import MIKit

/// The organisation's directory, as Config.plist describes it.
enum Directory {
    static func service(_ configuration: Configuration) throws -> any DirectoryService {
        LDAPDirectory(configuration: try DirectoryConfiguration(configuration.ldap))
    }
}
