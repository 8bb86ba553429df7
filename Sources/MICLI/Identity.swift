import Foundation
import MIKit

/// Who is at the terminal: the session `mi login` left. The workflow only ever sees the
/// resulting `Actor`.
enum Identity {
    static var sessions: SessionStore { SessionStore(environment: ProcessInfo.processInfo.environment) }

    static func current(configuration: Configuration) throws -> Session {
        try sessions.current(directory: configuration.ldap.url, now: Date())
    }
}
