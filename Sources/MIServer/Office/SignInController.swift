import Foundation
import Hummingbird
import MIDirectory
import MIKit

/// `/login` and `/logout`. The password is checked by the directory exactly as for `mi login`
/// (`SignIn.authenticate`: the same MIDirectory code, the same failed-sign-in limits),
/// and the office gets the same signed token, in an HttpOnly, SameSite=Strict cookie.
struct SignInController {
    let signIn: SignIn
    let views: OfficeViews
    let tokens: SessionTokens
    let lifetimeSeconds: Int
    let now: @Sendable () -> Date

    func register(on routes: RouteCollection<ServerContext>) {
        routes.get("login", use: form)
        routes.post("login", use: signIn)
        routes.post("logout", use: signOut)
    }

    /// The sign-in form; an already signed-in browser goes straight on.
    @Sendable func form(_ request: Request, context: ServerContext) async throws -> Response {
        let next = Self.safeNext(request.uri.queryParameters.get("next"))
        if tokens.officeSession(request, now: now()) != nil {
            return OfficeViews.redirect(to: next)
        }
        return page(request, context: context, next: next, user: "", error: nil, status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: ServerContext) async throws -> Response {
        let form = OfficeForm(try await request.body.collect(upTo: CSRFMiddleware.maximumFormBytes))
        let next = Self.safeNext(form["next"])
        let user = (form["user"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["password"] ?? ""
        guard !user.isEmpty, !password.isEmpty else {
            return page(request, context: context, next: next, user: user, error: "enter your user name and your password", status: .badRequest)
        }
        let signedIn: DirectoryUser
        do {
            signedIn = try await signIn.authenticate(user: user, password: password, request: request, context: context)
        } catch let error as HTTPError {
            return page(request, context: context, next: next, user: user, error: error.body ?? "sign-in failed",
                        status: error.status, headers: error.headers)
        }
        let (token, _) = try tokens.issue(for: signedIn, now: now())
        context.logger.info("office session started", metadata: ["user": .string(signedIn.userName), "role": .string(signedIn.role.rawValue)])
        var response = OfficeViews.redirect(to: next)
        response.setCookie(OfficeCookies.session(token, maxAge: lifetimeSeconds, request: request))
        response.setCookie(OfficeCookies.expired(OfficeCookies.signIn, path: "/login", request: request))
        return response
    }

    /// Ends the session on the server too (`SessionRevocations`): a copy of the cookie taken
    /// before is refused afterwards, by every server sharing the data folder.
    @Sendable func signOut(_ request: Request, context: ServerContext) async throws -> Response {
        if let (cookie, claims) = tokens.officeSession(request, now: now()) {
            let tokens = self.tokens
            try await Blocking.run { try tokens.revoke(cookie, claims: claims) }
            context.logger.info("office session ended", metadata: ["user": .string(claims.sub)])
        }
        var response = OfficeViews.redirect(to: "/login")
        response.setCookie(OfficeCookies.expired(OfficeCookies.session, path: "/", request: request))
        return response
    }

    /// The form, with a CSRF token bound to this browser's sign-in cookie (made when missing).
    private func page(_ request: Request, context: ServerContext, next: String, user: String, error: String?,
                      status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        let existing = request.cookies[OfficeCookies.signIn]?.value
        let binding = existing.flatMap { $0.isEmpty ? nil : $0 } ?? Base64URL.encode(Data((0..<24).map { _ in UInt8.random(in: 0...255) }))
        var context = context
        context.session = nil
        context.csrfToken = tokens.csrfToken(binding: binding)
        var values: [String: Any] = ["next": next, "user": user]
        if let error { values["error"] = error }
        var response = views.page("login", title: "Sign in", context: context, values: values, status: status, headers: headers)
        if binding != existing { response.setCookie(OfficeCookies.signIn(binding, request: request)) }
        return response
    }

    /// Where to go after signing in: a path of this site only, else `/`. It starts with one `/`
    /// (not `//` or `/\`, which browsers read as another host) and holds printable ASCII only:
    /// no control character (a browser drops a tab or newline, so `/<TAB>/evil` becomes
    /// `//evil`), no space, no backslash (read as `/`), nothing non-ASCII. The office's own links
    /// are percent-encoded (`OfficeSession`), so they always pass.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.count <= 2048, next.hasPrefix("/"), !next.hasPrefix("//"),
              next.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "\\" })
        else { return "/" }
        return next
    }
}
