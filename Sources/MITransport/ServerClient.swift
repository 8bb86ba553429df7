import CCurl
import Foundation
import MIKit

/// Talks to mi-server over libcurl: health, login, templates, streamed uploads with receipts.
///
/// One per command, used from one thread (it owns a libcurl easy handle, which is never shared
/// between threads; connections are reused between its requests). Every URL comes from
/// `Configuration.Server.url(_:id:)`. TLS is always verified, against `Server.CAFile` when set.
/// Temporary failures are retried as `RetryPolicy` says; a login only when no connection was made.
public final class ServerClient {
    /// Sent as `User-Agent`.
    public static let userAgent = "mi/0.1"
    /// The largest response body accepted (templates and receipts are far smaller).
    public static let maxResponseBytes = 64 << 20

    /// Where mi-server is (scheme, domain, port, paths) and which CAs to trust.
    public let server: Configuration.Server
    /// The session token sent as `Authorization: Bearer`; `createSession` sets it.
    public var token: String?
    /// How temporary failures are repeated.
    public let retry: RetryPolicy
    /// Seconds allowed for making a connection (CURLOPT_CONNECTTIMEOUT).
    public let connectTimeout: Int
    /// A transfer slower than `lowSpeedLimit` bytes a second for `lowSpeedTime` seconds is abandoned
    /// as timed out (CURLOPT_LOW_SPEED_LIMIT, CURLOPT_LOW_SPEED_TIME).
    public let lowSpeedLimit: Int
    /// See `lowSpeedLimit`.
    public let lowSpeedTime: Int
    /// How many tries the last request took.
    public internal(set) var attemptsOfLastRequest = 0

    /// The response body limit in bytes (`maxResponseBytes`; tests lower it).
    var responseLimit = ServerClient.maxResponseBytes

    /// The libcurl handle, made by the first request and reused by the next ones.
    var easy: CurlEasy?

    /// A client for `server`, sending `token` (if any) on the endpoints that need a session. The
    /// timeouts are in seconds; `lowSpeedTime` is lowered only by tests.
    public init(server: Configuration.Server, token: String? = nil, retry: RetryPolicy = .default,
                connectTimeout: Int = 10, lowSpeedLimit: Int = 1, lowSpeedTime: Int = 30) {
        self.server = server
        self.token = token
        self.retry = retry
        self.connectTimeout = connectTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        _ = CurlGlobal.isReady  // curl_global_init, once per process, before any handle exists
    }

    /// `scheme://domain:port`, for messages.
    var serverAddress: String { "\(server.scheme)://\(server.domain):\(server.port)" }

    func url(_ endpoint: Configuration.Server.Endpoint, id: String? = nil) throws -> URL {
        guard let url = server.url(endpoint, id: id) else {
            throw TransportError.invalidURL(endpoint: "\(endpoint)")
        }
        return url
    }
}
