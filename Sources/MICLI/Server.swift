import Foundation
import MIKit
import MITransport
#if canImport(Glibc)
import Glibc
#endif

/// mi-server, as the session and Config.plist describe it.
enum ServerAccess {
    /// A client carrying the session's server token, or an error saying how to get one.
    static func client(_ context: Context) throws -> ServerClient {
        guard let token = context.session.validServerToken(now: Date()) else {
            throw context.session.serverToken == nil ? SessionError.offlineLogin : SessionError.serverTokenExpired
        }
        return ServerClient(server: context.configuration.server, token: token)
    }
}
