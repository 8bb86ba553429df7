import Foundation
import HTTPTypes
import Hummingbird

/// The office's cookies. The session cookie holds the same signed token `mi login` gets (so
/// it expires with `Server.TokenMinutes` and survives a restart); the sign-in cookie is a random
/// value that binds the sign-in form's CSRF token to one browser before anyone is signed in.
enum OfficeCookies {
    static let session = "mi_office"
    static let signIn = "mi_signin"

    /// Secure when the browser reached the server over TLS (a proxy in front says so with
    /// `X-Forwarded-Proto: https`); setting it can only restrict where the cookie goes.
    static func isSecure(_ request: Request) -> Bool {
        request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    static func session(_ token: String, maxAge: Int, request: Request) -> Cookie {
        Cookie(name: session, value: token, maxAge: maxAge, path: "/", secure: isSecure(request), httpOnly: true, sameSite: .strict)
    }

    static func signIn(_ value: String, request: Request) -> Cookie {
        Cookie(name: signIn, value: value, maxAge: 3600, path: "/login", secure: isSecure(request), httpOnly: true, sameSite: .strict)
    }

    /// A cookie that tells the browser to forget `name`.
    static func expired(_ name: String, path: String, request: Request) -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: path, secure: isSecure(request), httpOnly: true, sameSite: .strict)
    }
}

/// Office pages: the signed-in user from the session cookie, into `context.session`, with the
/// page's CSRF token. Without a valid cookie a page asked for is a redirect to `/login` (which
/// comes back here after), anything else 401. A script may send the API's bearer token
/// instead (`mi login`'s token): then the token alone decides, never the cookie.
struct OfficeSessionMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let tokens: SessionTokens
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.headers[.authorization] != nil {
            return try await SessionMiddleware(tokens: tokens, now: now).handle(request, context: context, next: next)
        }
        guard let (cookie, claims) = tokens.officeSession(request, now: now()) else {
            if request.method == .get || request.method == .head {
                return OfficeViews.redirect(to: "/login?next=" + FormQuery.encoded(request.uri.description, keeping: "/"))
            }
            throw HTTPError(.unauthorized, message: "your office session has expired — sign in again")
        }
        var context = context
        context.session = claims
        context.csrfToken = tokens.csrfToken(binding: cookie)
        return try await next(request, context)
    }
}

/// Every office request that changes something (POST, PUT, PATCH, DELETE) from a browser
/// carries the CSRF token of its browser: in the `X-CSRF-Token` header (scripts), or the `_csrf`
/// field of a urlencoded or multipart form (the template upload) — never in the address, which
/// browsers keep in their history and proxies in their logs. Otherwise 403,
/// before the route runs. The token is bound to the session cookie, or before sign-in to the
/// sign-in cookie, so a page of another site cannot produce it.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    static let header = HTTPField.Name("X-CSRF-Token")!
    static let field = "_csrf"
    /// A urlencoded office form is small; a larger one is refused before it is read.
    static let maximumFormBytes = 64 * 1024
    /// A multipart office form holds one template file (`TemplateCatalog.maximumFileBytes`) and a few fields.
    static let maximumMultipartBytes = TemplateCatalog.maximumFileBytes + 64 * 1024

    let tokens: SessionTokens
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get, .head, .options: return try await next(request, context)
        default: break
        }
        // A valid bearer token is never sent by a browser on its own: such a request is a
        // script's, authorised by the token (OfficeSessionMiddleware ignores the cookie then).
        if tokens.bearerClaims(request, now: now()) != nil { return try await next(request, context) }
        let bindings = [OfficeCookies.session, OfficeCookies.signIn].compactMap { request.cookies[$0]?.value }.filter { !$0.isEmpty }
        var request = request
        var presented = request.headers[Self.header]
        if presented == nil, Self.isURLEncodedForm(request) {
            let body = try await request.body.collect(upTo: Self.maximumFormBytes)
            request.body = .init(buffer: body)
            presented = OfficeForm(body)[Self.field]
        } else if presented == nil, let boundary = try? MultipartReceiver.boundary(contentType: request.headers[.contentType]) {
            let body = try await request.body.collect(upTo: Self.maximumMultipartBytes)
            request.body = .init(buffer: body)
            presented = try Self.multipartField(Self.field, of: body, boundary: boundary)
        }
        guard let presented, bindings.contains(where: { tokens.isValidCSRFToken(presented, binding: $0) }) else {
            throw HTTPError(.forbidden, message: "this request did not come from an office page of this server (missing or wrong CSRF token) — reload the page and try again")
        }
        return try await next(request, context)
    }

    /// The text of field `name` of a multipart form held in memory; 400 for a malformed form.
    static func multipartField(_ name: String, of body: ByteBuffer, boundary: String) throws -> String? {
        let collector = MultipartFileCollector(field: "", limit: maximumMultipartBytes)
        let parser = MultipartStreamParser(boundary: boundary)
        do {
            try parser.feed(body, to: collector)
            try parser.finish()
        } catch let error as MultipartSyntaxError {
            throw HTTPError(.badRequest, message: "the upload is not a valid form: \(error.problem) — choose the file again")
        }
        return collector.fields[name]
    }

    static func isURLEncodedForm(_ request: Request) -> Bool {
        (request.headers[.contentType] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded")
    }
}

/// The fields of an `application/x-www-form-urlencoded` body; the first value of a name wins.
struct OfficeForm: Sendable {
    private(set) var fields: [String: String] = [:]

    init(_ body: ByteBuffer) {
        self.init(String(buffer: body))
    }

    init(_ text: String) {
        for (name, value) in FormQuery.parameters(text) where fields[name] == nil { fields[name] = value }
    }

    subscript(_ name: String) -> String? { fields[name] }
}
