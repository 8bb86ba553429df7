import Foundation
import Hummingbird
import MIDirectory
import MIKit
import NIOPosix

/// `POST Server.Paths.Session`: directory credentials in, a signed session token out.
struct SessionController {
    /// libldap blocks for up to `LDAP.TimeoutSeconds`; logins get their own threads so an
    /// unreachable directory never stalls the uploads' disk writes.
    static let directoryThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    let path: String
    let directory: any DirectoryService
    let tokens: SessionTokens
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.post(RouterPath(path), use: create)
        return routes
    }

    @Sendable func create(_ request: Request, context: ServerContext) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let credentials: SessionRequest
        do {
            credentials = try WireJSON.decoder().decode(SessionRequest.self, from: body)
        } catch {
            throw HTTPError(.badRequest, message: "the body must be JSON {\"user\": \"…\", \"password\": \"…\"} — use `mi login`")
        }
        let directory = self.directory
        let user: DirectoryUser
        do {
            user = try await Self.directoryThreads.runIfActive {
                try directory.authenticate(user: credentials.user, password: credentials.password)
            }
        } catch let error as DirectoryError {
            throw Self.httpError(error, context: context)
        }
        let (token, claims) = try tokens.issue(for: user, now: now())
        context.logger.info("session started", metadata: ["user": .string(user.userName), "role": .string(user.role.rawValue)])
        return try JSONResponse.make(.ok, ServerSession(token: token, user: user.userName, displayName: user.displayName,
                                                  role: user.role, expiresAt: claims.expiresAt))
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
