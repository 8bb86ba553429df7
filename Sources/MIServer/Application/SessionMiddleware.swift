import Foundation
import HTTPTypes
import Hummingbird
import MIDirectory

/// Requires `Authorization: Bearer <token>` with a valid, unexpired token signed by this
/// server, and puts its claims in the context. A GET or HEAD may instead carry the office's
/// session cookie (the same token), so an office page can show a photo or play a video from
/// the API; the cookie never authorises a request that changes something.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    static let message = "session expired or invalid — run `mi login`"

    let tokens: SessionTokens
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let claims: SessionClaims?
        if request.headers[.authorization] != nil {
            claims = tokens.bearerClaims(request, now: now())
        } else if request.method == .get || request.method == .head {
            claims = tokens.officeSession(request, now: now())?.claims
        } else {
            claims = nil
        }
        guard let claims else { throw Self.unauthorized }
        var context = context
        context.session = claims
        return try await next(request, context)
    }

    static var unauthorized: HTTPError {
        HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"mi\""], message: message)
    }
}

extension ServerContext {
    /// The session's claims; the routes that call this sit behind `SessionMiddleware`.
    func requireSession() throws -> SessionClaims {
        guard let session else { throw SessionMiddleware.unauthorized }
        return session
    }

    /// The session's claims when the user is a foreman, else 403.
    func requireForeman(toDo action: String) throws -> SessionClaims {
        let session = try requireSession()
        guard session.role == .foreman else {
            throw HTTPError(.forbidden, message: "only a foreman may \(action) — you are logged in as \(session.sub), a technician; ask your foreman")
        }
        return session
    }
}

extension SessionTokens {
    /// The claims of the request's `Authorization: Bearer <token>`; nil when absent or not valid.
    func bearerClaims(_ request: Request, now: Date) -> SessionClaims? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return verify(String(parts[1]).trimmingCharacters(in: .whitespaces), now: now)
    }

    /// The office's session cookie and its claims, when it holds a valid token.
    func officeSession(_ request: Request, now: Date) -> (cookie: String, claims: SessionClaims)? {
        guard let cookie = request.cookies[OfficeCookies.session]?.value, let claims = verify(cookie, now: now) else { return nil }
        return (cookie, claims)
    }
}
