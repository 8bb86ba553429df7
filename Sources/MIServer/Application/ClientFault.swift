import Foundation
import HTTPTypes
import Logging
import MIKit
import NIOCore
import NIOHTTP1

/// What a client did wrong at the HTTP level. Each case is answered with `status` and the API's
/// error body, and logged as the client's fault, never as the server's.
enum ClientFault: ClassifiedError, Sendable, Equatable {
    /// The header block was not complete within `Server.HeaderTimeoutSeconds`.
    case headerTimeout(seconds: Int)
    /// No body byte arrived for `Server.BodyTimeoutSeconds`.
    case bodyStalled(seconds: Int)
    /// The body arrived slower than `Server.MinimumBytesPerSecond` on average.
    case bodyTooSlow(bytesPerSecond: Int, minimum: Int)
    /// The connection ended before the body was complete.
    case bodyCutShort
    /// The bytes are not HTTP/1.1 the server accepts (`detail` is the parser's word for it).
    case malformedHTTP(detail: String)
    /// The header block, or one header, is larger than the server reads (80 KiB), or has too
    /// many fields.
    case headersTooLarge
    /// The address already holds `Server.MaxConnectionsPerAddress` connections.
    case tooManyConnections(limit: Int)

    var failureClass: FailureClass {
        switch self {
        case .headerTimeout, .bodyStalled, .bodyTooSlow, .tooManyConnections: return .refused
        case .bodyCutShort, .malformedHTTP, .headersTooLarge: return .badData
        }
    }

    var code: String {
        switch self {
        case .headerTimeout: return "header-timeout"
        case .bodyStalled: return "body-timeout"
        case .bodyTooSlow: return "body-too-slow"
        case .bodyCutShort: return "body-cut-short"
        case .malformedHTTP: return "malformed-http"
        case .headersTooLarge: return "headers-too-large"
        case .tooManyConnections: return "too-many-connections"
        }
    }

    var status: HTTPResponse.Status {
        switch self {
        case .headerTimeout, .bodyStalled, .bodyTooSlow: return .requestTimeout
        case .bodyCutShort, .malformedHTTP: return .badRequest
        case .tooManyConnections: return .serviceUnavailable
        case .headersTooLarge: return .requestHeaderFieldsTooLarge
        }
    }

    var errorDescription: String? {
        switch self {
        case .headerTimeout(let seconds):
            return "the request's headers did not arrive within \(seconds) s — check the network and send the request again"
        case .bodyStalled(let seconds):
            return "no byte of the request body arrived for \(seconds) s — check the network and send the request again"
        case .bodyTooSlow(let rate, let minimum):
            return "the request body arrived at \(rate) bytes/s, slower than the server's minimum of \(minimum) bytes/s — try again over a better connection"
        case .bodyCutShort:
            return "the request ended before its body was complete — send it again"
        case .malformedHTTP(let detail):
            return "the request is not valid HTTP/1.1 (\(detail)) — check the client"
        case .headersTooLarge:
            return "the request's headers are larger than the server reads (80 KiB in all, 80 KiB for one header) — send smaller headers (a cookie or token too large?)"
        case .tooManyConnections(let limit):
            return "this address already has \(limit) open connections to the server — close some and try again in a few seconds"
        }
    }

    /// The parser's errors, in the client's terms: a body that stopped early, or malformed HTTP.
    init(_ error: HTTPParserError) {
        if case .invalidEOFState = error {
            self = .bodyCutShort
        } else if case .headerOverflow = error {
            self = .headersTooLarge
        } else {
            self = .malformedHTTP(detail: "\(error)")
        }
    }

    /// Logs the fault with the client's address, at a level that does not page anyone.
    func log(_ logger: Logger, remote: SocketAddress?) {
        logger.notice("client error: \(errorDescription ?? code)", metadata: [
            "fault": "client", "code": .string(code), "client": .string(remote?.ipAddress ?? "unknown"),
        ])
    }
}
