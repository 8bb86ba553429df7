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
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let routes: RouteTable

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
        } catch let error as HTTPError {
            log(request, status: error.status, since: start, context: context, message: error.body)
            return try JSONResponse.error(error.status, message: error.body ?? Self.defaultMessage(error.status, request),
                                          headers: error.headers)
        } catch let error as ClientFault {
            return try answer(error, request, since: start, context: context)
        } catch let error as HTTPParserError {
            return try answer(ClientFault(error), request, since: start, context: context)
        } catch let error as any HTTPResponseError {
            // Hummingbird's own (a JSON body over the size limit): the same error body as ours.
            log(request, status: error.status, since: start, context: context)
            return try JSONResponse.error(error.status, message: Self.defaultMessage(error.status, request))
        } catch {
            context.logger.error("request failed", metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "error": .string(String(describing: error)),
            ])
            log(request, status: .internalServerError, since: start, context: context)
            return try JSONResponse.error(.internalServerError, message: "the server could not complete the request — try again; if it keeps failing, tell the administrator (the server's log has the details)")
        }
    }

    /// The client's fault: its status and message, logged as the client's (the connection
    /// closes after the answer, since the rest of the request cannot be trusted).
    private func answer(_ fault: ClientFault, _ request: Request, since start: ContinuousClock.Instant,
                        context: Context) throws -> Response {
        fault.log(context.logger, remote: context.remoteAddress)
        log(request, status: fault.status, since: start, context: context, message: fault.errorDescription)
        return try JSONResponse.error(fault.status, message: fault.errorDescription ?? fault.code, headers: [.connection: "close"])
    }

    static func defaultMessage(_ status: HTTPResponse.Status, _ request: Request) -> String {
        switch status {
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

    /// The methods registered for the paths `path` matches, sorted; empty for an unknown path.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = routes.withLockedValue { routes in
            routes.filter { Self.matches($0.path, segments) }.map(\.method)
        }
        return Set(matching).sorted()
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
