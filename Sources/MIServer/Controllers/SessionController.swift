import Foundation
import Hummingbird
import MIKit

/// `POST Server.Paths.Session`: directory credentials in, a signed session token out.
struct SessionController {
    let path: String
    let signIn: SignIn
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
        let user = try await signIn.authenticate(user: credentials.user, password: credentials.password, request: request, context: context)
        let (token, claims) = try tokens.issue(for: user, now: now())
        context.logger.info("session started", metadata: ["user": .string(user.userName), "role": .string(user.role.rawValue)])
        return try JSONResponse.make(.ok, ServerSession(token: token, user: user.userName, displayName: user.displayName,
                                                  role: user.role, expiresAt: claims.expiresAt))
    }
}
