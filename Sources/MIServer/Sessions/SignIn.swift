import Foundation
import Hummingbird
import MIDirectory
import MIKit
import NIOPosix

/// The threads the directory is asked on: libldap blocks for up to `LDAP.TimeoutSeconds`, so
/// sign-ins and technician lookups get their own threads and an unreachable directory never
/// stalls the uploads' disk writes.
enum DirectoryThreads {
    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()
}

/// Signing in with directory credentials, for `mi login` (`SessionController`) and the
/// office's sign-in form (`SignInController`) alike: the same MIDirectory code, the same
/// failed-sign-in limits (`SignInLimiter`).
struct SignIn: Sendable {
    let directory: any DirectoryService
    let limiter: SignInLimiter
    /// `Server.TrustedProxies`: whose `X-Forwarded-For` names the client (`ClientAddress`).
    let trustedProxies: Set<String>
    let now: @Sendable () -> Date

    /// Checks a password with the directory, for `mi login` and the office's sign-in alike.
    /// A user name or address with too many recent failures is refused (429 with Retry-After)
    /// without asking the directory; wrong credentials are 401 and counted.
    func authenticate(user name: String, password: String, request: Request, context: ServerContext) async throws -> DirectoryUser {
        let address = ClientAddress.of(request, context: context, trusted: trustedProxies)
        if let wait = limiter.retryAfter(user: name, address: address, now: now()) {
            context.logger.notice("sign-in refused: too many failures", metadata: ["user": .string(name), "address": .string(address)])
            await context.audit.record(.signInFailed, actor: name, subject: request.uri.path, detail: "too many failed sign-ins")
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(wait)],
                            message: "too many failed sign-ins for this user or from this address — wait \(Self.minutes(wait)) and try again, or ask the administrator to check the password")
        }
        let directory = self.directory
        do {
            let user = try await DirectoryThreads.pool.runIfActive {
                try directory.authenticate(user: name, password: password)
            }
            limiter.recordSuccess(user: name)
            await context.audit.record(.signIn, actor: user.userName, subject: request.uri.path, detail: user.role.rawValue)
            return user
        } catch let error as DirectoryError {
            if error.failureClass == .notPermitted { limiter.recordFailure(user: name, address: address, now: now()) }
            await context.audit.record(.signInFailed, actor: name, subject: request.uri.path, detail: error.errorDescription ?? "\(error)")
            throw Self.httpError(error, context: context)
        }
    }

    private static func minutes(_ seconds: Int) -> String {
        seconds <= 60 ? "a minute" : "\((seconds + 59) / 60) minutes"
    }

    /// Wrong credentials are 401; everything else the directory (or its configuration) does
    /// wrong is the server's problem, 503, logged in full. The directory error's class decides.
    static func httpError(_ error: DirectoryError, context: ServerContext) -> HTTPError {
        switch error.failureClass {
        case .notPermitted:
            return HTTPError(.unauthorized, message: error.errorDescription ?? "wrong user name or password — check both and try again")
        case .unreachable:
            context.logger.error("directory unreachable: \(error.errorDescription ?? "")")
            return HTTPError(.serviceUnavailable, message: "the server cannot reach the directory to check your password — try again in a few minutes; tell the administrator if it keeps failing")
        default:
            context.logger.error("directory refused the login: \(error.errorDescription ?? "")")
            return HTTPError(.serviceUnavailable, message: "the server's directory settings do not work, so no one can log in — tell the administrator (the server's log has the details)")
        }
    }
}
