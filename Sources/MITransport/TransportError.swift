import Foundation
import MIKit

/// Why a request to mi-server failed, each case with a message that says what to do.
/// Network failures end with libcurl's own words (`curl_easy_strerror` and its error buffer).
public enum TransportError: ClassifiedError, Equatable {
    /// Config.plist's `Server` settings give no URL for this endpoint.
    case invalidURL(endpoint: String)
    /// DNS found no address for the server's host.
    case cannotResolveHost(host: String, detail: String)
    /// The host answered, but nothing listens on the port.
    case connectionRefused(url: String, detail: String)
    /// No connection could be made for another reason (no route, network down).
    case cannotConnect(url: String, detail: String)
    /// The server's certificate does not verify against the trusted CAs.
    case certificateNotTrusted(host: String, detail: String)
    /// `Server.CAFile` cannot be read or holds no usable certificate.
    case caFileUnusable(path: String, detail: String)
    /// The TLS handshake failed (for instance a plain-HTTP server on an `https` port).
    case tlsFailed(host: String, detail: String)
    /// The server stopped answering: connect timeout, or less than the minimum speed for too long.
    case timedOut(url: String, detail: String)
    /// Any other network failure.
    case network(url: String, detail: String)
    /// The response body was larger than the client accepts.
    case responseTooLarge(url: String, limit: Int)
    /// 401 on an endpoint that needs a session.
    case sessionExpired
    /// 401 when logging in.
    case wrongCredentials
    /// 403: the server's message (role not allowed).
    case forbidden(message: String)
    /// 404 for something that must exist.
    case notFound(what: String)
    /// 409: the server's message (a different upload already used this form id).
    case conflict(message: String)
    /// 422: the server's message (a form it will not take, e.g. simulated answers).
    case rejected(message: String)
    /// 409 `once-per-user`: the server's message, naming the user's first submission of the template.
    case oncePerUser(message: String)
    /// 422 `consent-required`: the form lacks the acceptance of its template's consent text.
    case consentRequired(message: String)
    /// 413: the server's message (which names its limit) and this upload's size.
    case uploadTooLarge(message: String?, uploadBytes: Int64)
    /// 429 on every attempt.
    case tooManyRequests(message: String?, attempts: Int)
    /// 5xx on every attempt.
    case serverError(status: Int, message: String?, attempts: Int)
    /// Any other status.
    case unexpectedStatus(status: Int, message: String?)
    /// A success status whose body is not what the API promises (a proxy's or captive portal's page).
    case badResponse(expected: String, detail: String)
    /// A file to upload or hash cannot be read.
    case unreadableFile(path: String, detail: String)
    /// The files given to `upload` do not make a valid submission.
    case invalidUpload(reason: String)
    /// libcurl itself failed (setup, out of memory).
    case libcurl(detail: String)

    /// What happened and what to do, in one sentence.
    public var errorDescription: String? {
        switch self {
        case .invalidURL(let endpoint):
            return "Config.plist's Server settings give no valid URL for \(endpoint) — check Server.Scheme, Server.Domain, Server.Port and Server.Paths"
        case .cannotResolveHost(let host, let detail):
            return "cannot find the server \(host) — check Server.Domain in Config.plist and the network (libcurl: \(detail))"
        case .connectionRefused(let url, let detail):
            return "mi-server at \(url) refused the connection — is it running? Check Server.Port in Config.plist too (libcurl: \(detail))"
        case .cannotConnect(let url, let detail):
            return "cannot reach mi-server at \(url) — check the network, Server.Domain and Server.Port (libcurl: \(detail))"
        case .certificateNotTrusted(let host, let detail):
            return "the TLS certificate of \(host) is not trusted — if mi-server's certificate comes from your organisation's own CA, set Server.CAFile to your CA bundle (libcurl: \(detail))"
        case .caFileUnusable(let path, let detail):
            return "cannot use the CA bundle \(path) — set Server.CAFile to a readable PEM file of CA certificates (libcurl: \(detail))"
        case .tlsFailed(let host, let detail):
            return "the TLS handshake with \(host) failed — check Server.Scheme (https needs a TLS server) and Server.Port (libcurl: \(detail))"
        case .timedOut(let url, let detail):
            return "mi-server at \(url) stopped answering — check the network and try again; repeating an upload is safe (libcurl: \(detail))"
        case .network(let url, let detail):
            return "the connection to mi-server at \(url) failed — try again; repeating an upload is safe (libcurl: \(detail))"
        case .responseTooLarge(let url, let limit):
            return "the answer from \(url) is larger than \(limit) bytes — check that Server.Domain and Server.Port point at mi-server"
        case .sessionExpired:
            return "session expired — run `mi login`"
        case .wrongCredentials:
            return "wrong user name or password"
        case .forbidden(let message):
            return "the server refused: \(message)"
        case .notFound(let what):
            return "\(what) is not on the server (404)"
        case .conflict(let message):
            return "the server refused the upload: \(message)"
        case .rejected(let message):
            return "the server refused the form: \(message)"
        case .oncePerUser(let message), .consentRequired(let message):
            return "the server refused the form: \(message)"
        case .uploadTooLarge(let message, let uploadBytes):
            let reason = message ?? "the upload is larger than the server's limit"
            return "\(reason) (this upload: \(uploadBytes) bytes) — ask the administrator to raise Server.MaxUploadBytes"
        case .tooManyRequests(let message, let attempts):
            return "mi-server is busy (429)\(Self.suffix(message)) after \(attempts) \(Self.attempts(attempts)) — try again in a few minutes"
        case .serverError(let status, let message, let attempts):
            return "mi-server failed with status \(status)\(Self.suffix(message)) after \(attempts) \(Self.attempts(attempts)) — try again later, or tell the administrator"
        case .unexpectedStatus(let status, let message):
            return "mi-server answered with status \(status)\(Self.suffix(message))"
        case .badResponse(let expected, let detail):
            return "the server's answer was not \(expected) (\(detail)) — check that Server.Domain and Server.Port point at mi-server and that no proxy or captive portal is in the way"
        case .unreadableFile(let path, let detail):
            return "cannot read \(path): \(detail)"
        case .invalidUpload(let reason):
            return "cannot upload: \(reason)"
        case .libcurl(let detail):
            return "libcurl failed: \(detail)"
        }
    }

    /// The class of the failure: what the exit status and a script's branch depend on. Failures
    /// that may pass (no connection, timeouts, a busy or restarting server) are `unreachable`;
    /// TLS and settings problems are `configuration`; the server's refusals are `refused`.
    public var failureClass: FailureClass {
        switch self {
        case .invalidURL, .certificateNotTrusted, .caFileUnusable, .tlsFailed:
            return .configuration
        case .cannotResolveHost, .connectionRefused, .cannotConnect, .timedOut, .network, .tooManyRequests:
            return .unreachable
        case .serverError(let status, _, _):
            return [502, 503, 504].contains(status) ? .unreachable : .refused
        case .sessionExpired, .wrongCredentials, .forbidden:
            return .notPermitted
        case .notFound:
            return .notFound
        case .conflict, .rejected, .oncePerUser, .consentRequired, .uploadTooLarge, .unexpectedStatus, .badResponse, .responseTooLarge:
            return .refused
        case .unreadableFile:
            return .notFound
        case .invalidUpload, .libcurl:
            return .internalFailure
        }
    }

    /// A stable identifier of the case, for scripts.
    public var code: String {
        switch self {
        case .invalidURL: return "invalid-server-url"
        case .cannotResolveHost: return "server-host-unknown"
        case .connectionRefused: return "server-connection-refused"
        case .cannotConnect: return "server-unreachable"
        case .certificateNotTrusted: return "server-certificate-not-trusted"
        case .caFileUnusable: return "server-ca-file-unusable"
        case .tlsFailed: return "server-tls-failed"
        case .timedOut: return "server-timed-out"
        case .network: return "server-connection-failed"
        case .responseTooLarge: return "server-response-too-large"
        case .sessionExpired: return "session-expired"
        case .wrongCredentials: return "wrong-credentials"
        case .forbidden: return "forbidden"
        case .notFound: return "not-on-server"
        case .conflict: return "upload-conflict"
        case .rejected: return "upload-rejected"
        case .oncePerUser: return "once-per-user"
        case .consentRequired: return "consent-required"
        case .uploadTooLarge: return "upload-too-large"
        case .tooManyRequests: return "server-busy"
        case .serverError: return "server-error"
        case .unexpectedStatus: return "unexpected-status"
        case .badResponse: return "bad-response"
        case .unreadableFile: return "unreadable-file"
        case .invalidUpload: return "invalid-upload"
        case .libcurl: return "libcurl"
        }
    }

    private static func suffix(_ message: String?) -> String { message.map { ": \($0)" } ?? "" }
    private static func attempts(_ count: Int) -> String { count == 1 ? "attempt" : "attempts" }
}
