import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIKit

/// The outermost middleware: logs every request with its status and duration, and makes
/// sure every error leaves as the API's error body (`APIErrorBody`) with a sentence saying what to do
/// — including unknown routes and unexpected failures, which are logged, never shown raw.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status, since: start, context: context)
            return response
        } catch let error as HTTPError {
            log(request, status: error.status, since: start, context: context, message: error.body)
            return try JSONResponse.error(error.status, message: error.body ?? Self.defaultMessage(error.status, request),
                                          headers: error.headers)
        } catch let error as any HTTPResponseError {
            log(request, status: error.status, since: start, context: context)
            throw error
        } catch {
            context.logger.error("request failed", metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "error": .string(String(describing: error)),
            ])
            log(request, status: .internalServerError, since: start, context: context)
            return try JSONResponse.error(.internalServerError, message: "the server could not complete the request — try again; if it keeps failing, tell the administrator (the server's log has the details)")
        }
    }

    static func defaultMessage(_ status: HTTPResponse.Status, _ request: Request) -> String {
        switch status {
        case .notFound:
            return "no such endpoint: \(request.method.rawValue) \(request.uri.path) — check Server.Paths in Config.plist"
        case .methodNotAllowed:
            return "\(request.method.rawValue) is not allowed on \(request.uri.path) — check the client's version"
        case .contentTooLarge:
            return "the request body is too large — send less"
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
