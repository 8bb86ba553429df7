import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIKit
import NIOConcurrencyHelpers
import NIOHTTP1

/// The outermost middleware: logs every request with its status and duration, and makes
/// sure every error leaves as the API's error body (`APIErrorBody`) with a sentence saying what to do
/// — including unknown routes and unexpected failures, which are logged, never shown raw.
///
/// A known path asked with a method it does not have is 405 with `Allow` listing the methods
/// registered for it (`RouteTable`), before any route or token check runs.
///
/// A browser asking for an office page (or a path that is no API route) gets the error as an
/// HTML page of the office instead, with the same status and sentence.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let routes: RouteTable
    let views: OfficeViews
    /// For the error page's navigation: who is signed in, from the office cookie.
    let tokens: SessionTokens
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let allowed = routes.methods(for: request.uri.path)
            if !allowed.isEmpty, !allowed.contains(request.method.rawValue) {
                throw HTTPError(.methodNotAllowed, headers: [.allow: allowed.joined(separator: ", ")])
            }
            let response = try await next(request, context)
            log(request, status: response.status, since: start, context: context)
            return response
        } catch {
            return try answer(error, request, since: start, context: context)
        }
    }

    /// Any error as an answer: a refusal (`HTTPRefusal`, where the domain errors get their
    /// status) with its status and sentence, a client's fault at the HTTP level as the client's,
    /// and anything else as the server's failure — logged in full, never shown raw.
    private func answer(_ error: any Error, _ request: Request, since start: ContinuousClock.Instant,
                        context: Context) throws -> Response {
        if let refusal = HTTPRefusal(error) {
            log(request, status: refusal.status, since: start, context: context, message: refusal.message)
            return try answer(refusal.status, message: refusal.message ?? Self.defaultMessage(refusal.status, request, routes: routes),
                              code: refusal.code, headers: refusal.headers, request, context: context)
        }
        if let fault = error as? ClientFault {
            return try answer(fault, request, since: start, context: context)
        }
        if let error = error as? HTTPParserError {
            return try answer(ClientFault(error), request, since: start, context: context)
        }
        if let error = error as? any HTTPResponseError {
            // Hummingbird's own (a JSON body over the size limit): the same error body as ours.
            log(request, status: error.status, since: start, context: context)
            return try answer(error.status, message: Self.defaultMessage(error.status, request, routes: routes), request, context: context)
        }
        context.logger.error("request failed", metadata: [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path),
            "error": .string(String(describing: error)),
        ])
        log(request, status: .internalServerError, since: start, context: context)
        return try answer(.internalServerError, message: "the server could not complete the request — try again; if it keeps failing, tell the administrator (the server's log has the details)",
                          request, context: context)
    }

    /// The client's fault: its status and message, logged as the client's (the connection
    /// closes after the answer, since the rest of the request cannot be trusted).
    private func answer(_ fault: ClientFault, _ request: Request, since start: ContinuousClock.Instant,
                        context: Context) throws -> Response {
        fault.log(context.logger, remote: context.remoteAddress)
        log(request, status: fault.status, since: start, context: context, message: fault.errorDescription)
        return try answer(fault.status, message: fault.errorDescription ?? fault.code, headers: [.connection: "close"], request, context: context)
    }

    /// The error as the API's JSON body, or as an office page for a browser on an office path.
    private func answer(_ status: HTTPResponse.Status, message: String, code: String? = nil, headers: HTTPFields = [:],
                        _ request: Request, context: Context) throws -> Response {
        if routes.wantsPage(request) {
            var context = context
            if let (cookie, claims) = tokens.officeSession(request, now: now()) {
                context.session = claims
                context.csrfToken = tokens.csrfToken(binding: cookie)
            }
            return views.errorPage(status, message: message, context: context, headers: headers)
        }
        return try JSONResponse.error(status, message: message, code: code, headers: headers)
    }

    static func defaultMessage(_ status: HTTPResponse.Status, _ request: Request, routes: RouteTable) -> String {
        switch status {
        case .notFound where routes.wantsPage(request):
            return "there is no page at \(request.uri.path) — go back to the dashboard"
        case .notFound:
            return "no such endpoint: \(request.method.rawValue) \(request.uri.path) — check Server.Paths in Config.plist"
        case .methodNotAllowed:
            return "\(request.method.rawValue) is not allowed on \(request.uri.path) — check the client's version"
        case .contentTooLarge:
            return "the request body is too large — send less"
        case .requestTimeout:
            return "the request did not arrive in time — check the network and send it again"
        case .badRequest:
            return "the request is malformed — check the client's version"
        default:
            return "\(status.code) \(status.reasonPhrase)"
        }
    }

    private func log(_ request: Request, status: HTTPResponse.Status, since start: ContinuousClock.Instant,
                     context: Context, message: String? = nil) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        var metadata: Logger.Metadata = ["status": .stringConvertible(status.code), "ms": .stringConvertible(milliseconds)]
        if let message, status.code >= 400 { metadata["error"] = .string(message) }
        context.logger.info("\(request.method.rawValue) \(request.uri.path)", metadata: metadata)
    }
}

/// The registered routes, for telling an unknown path (404) from a known path asked with a
/// method it does not have (405). Filled once the routes are registered, read by every request.
final class RouteTable: Sendable {
    private let routes = NIOLockedValueBox<[RegisteredRoute]>([])

    func set(_ routes: [RegisteredRoute]) {
        self.routes.withLockedValue { $0 = routes }
    }

    /// Whether an error for `request` should be an office page: a browser (it accepts HTML)
    /// asking for an office route or for a path no API route has.
    func wantsPage(_ request: Request) -> Bool {
        guard (request.headers[.accept] ?? "").contains("text/html") else { return false }
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.withLockedValue { routes in
            let api = routes.filter { !$0.office }
            if api.contains(where: { Self.matches($0.path, segments) }) { return false }
            if routes.contains(where: { $0.office && Self.matches($0.path, segments) }) { return true }
            // An unknown path under the API's folders (`/api/…`) keeps the API's error body.
            let apiFolders = Set(api.compactMap { $0.path.split(separator: "/").first })
            return segments.first.map { !apiFolders.contains($0) } ?? true
        }
    }

    /// The methods registered for the paths `path` matches, sorted, with HEAD wherever GET is
    /// (the router answers it as GET without the body); empty for an unknown path.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var matching = Set(routes.withLockedValue { routes in
            routes.filter { Self.matches($0.path, segments) }.map(\.method)
        })
        if matching.contains("GET") { matching.insert("HEAD") }
        return matching.sorted()
    }

    /// Whether `pattern` (`/api/v1/submissions/{id}`) matches the path's segments: a `{…}` or
    /// `:…` segment or `*` matches any one segment, `**` the rest.
    static func matches(_ pattern: String, _ segments: [Substring]) -> Bool {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        for (index, part) in parts.enumerated() {
            if part == "**" { return segments.count > index }
            guard index < segments.count else { return false }
            if part == "*" || part.hasPrefix(":") || part.contains("{") { continue }
            if part != segments[index] { return false }
        }
        return parts.count == segments.count
    }
}
