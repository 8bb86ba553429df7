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
    public private(set) var attemptsOfLastRequest = 0

    /// The response body limit in bytes (`maxResponseBytes`; tests lower it).
    var responseLimit = ServerClient.maxResponseBytes

    private var easy: CurlEasy?

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

    // MARK: - Endpoints

    /// `GET /health`: succeeds when mi-server answers `{"status":"ok"}`.
    public func health() throws {
        let response = try exchange(Request(endpoint: .health, url: try url(.health), method: .get,
                                            authorized: false, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the health check") }
        struct Health: Decodable { var status: String }
        let health = try decode(Health.self, from: response, expected: "mi-server's health answer")
        guard health.status == "ok" else {
            throw TransportError.badResponse(expected: "mi-server's health answer",
                                             detail: "status \"\(health.status)\" instead of \"ok\"")
        }
    }

    /// `POST /api/v1/session`: logs in and keeps the new token in `token`. Retried only when no
    /// connection could be made; a 401 is `wrongCredentials`.
    public func createSession(user: String, password: String) throws -> ServerSession {
        struct Credentials: Encodable { var user: String; var password: String }
        let body = try WireJSON.encoder().encode(Credentials(user: user, password: password))
        let response = try exchange(Request(endpoint: .session, url: try url(.session), method: .postJSON(body),
                                            authorized: false, retryScope: .connectionFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the login endpoint", login: true) }
        let session = try decode(ServerSession.self, from: response, expected: "an MI session")
        token = session.token
        return session
    }

    /// `GET /api/v1/templates`: the templates the server offers, sorted by id.
    public func templates() throws -> [TemplateListing] {
        let response = try exchange(Request(endpoint: .templateList, url: try url(.templateList), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the template list") }
        return try decode([TemplateListing].self, from: response, expected: "an MI template list")
    }

    /// `GET /api/v1/templates/{id}`: the template file's exact bytes. The body must be JSON, and
    /// match the SHA-256 in the `ETag` when the server sends one.
    public func template(id: String) throws -> Data {
        let response = try exchange(Request(endpoint: .template, url: try url(.template, id: id), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "template \"\(id)\"") }
        guard (try? JSONSerialization.jsonObject(with: response.body)) is [String: Any] else {
            throw TransportError.badResponse(expected: "an MI template", detail: Self.describe(response))
        }
        if let etag = response.header("ETag") {
            let expected = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"W/ ")).lowercased()
            let actual = FileDigest.sha256(of: response.body)
            if expected.count == 64, expected != actual {
                throw TransportError.badResponse(expected: "the template the server listed",
                                                 detail: "its SHA-256 is \(actual), the ETag says \(expected)")
            }
        }
        return response.body
    }

    /// `POST /api/v1/submissions`: uploads the form (first, part `form`) and its media, streamed
    /// from disk. Retried on temporary failures: the form's id makes the upload idempotent, so the
    /// server stores it once. `created` is true for 201 (stored now), false for 200 (stored by an
    /// earlier attempt). The receipt is checked to be for `formID`; comparing its hashes with the
    /// local files is the caller's job before deleting anything.
    public func upload(formID: String, files: [UploadFile],
                       progress: TransferProgress?) throws -> (receipt: Receipt, created: Bool) {
        let throttle = progress.map(ProgressThrottle.init)
        defer { throttle?.finish() }
        guard let first = files.first, first.partName == UploadFile.formPartName else {
            throw TransportError.invalidUpload(reason: "the first part must be the form (part \"form\", form.json)")
        }
        var seen = Set<String>()
        for file in files {
            guard !file.partName.isEmpty, seen.insert(file.partName).inserted else {
                throw TransportError.invalidUpload(reason: "part name \"\(file.partName)\" is empty or used twice")
            }
        }
        let response = try exchange(Request(endpoint: .submit, url: try url(.submit), method: .postMultipart(files),
                                            authorized: true, retryScope: .transientFailures, progress: throttle))
        guard response.status == 201 || response.status == 200 else {
            throw failure(for: response, notFound: "the upload endpoint")
        }
        let receipt = try decode(Receipt.self, from: response, expected: "an MI receipt")
        guard receipt.id.lowercased() == formID.lowercased() else {
            throw TransportError.badResponse(expected: "the receipt of form \(formID)",
                                             detail: "it is the receipt of form \(receipt.id)")
        }
        return (receipt, response.status == 201)
    }

    /// `GET /api/v1/submissions/{id}`: the receipt of a stored submission, nil when the server has none.
    public func receipt(id: String) throws -> Receipt? {
        let response = try exchange(Request(endpoint: .submission, url: try url(.submission, id: id), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        if response.status == 404, ErrorBody.message(in: response.body) != nil || response.body.isEmpty {
            return nil
        }
        guard response.status == 200 else { throw failure(for: response, notFound: "submission \(id)") }
        return try decode(Receipt.self, from: response, expected: "an MI receipt")
    }

    // MARK: - Requests

    struct Request {
        enum Method {
            case get
            case postJSON(Data)
            case postMultipart([UploadFile])
        }

        /// Which failures may be repeated: temporary ones (network errors, 408, 429, 5xx), or only
        /// a failure before the request was sent (nothing reached the server).
        enum RetryScope { case transientFailures, connectionFailures }

        var endpoint: Configuration.Server.Endpoint
        var url: URL
        var method: Method
        var authorized: Bool
        var retryScope: RetryScope
        var progress: ProgressThrottle?
    }

    struct Response {
        var status: Int
        var body: Data
        var headers: [(name: String, value: String)]
        /// Bytes of files sent (multipart uploads), for a 413's message.
        var uploadBytes: Int64

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        var retryAfter: TimeInterval? { header("Retry-After").flatMap { RetryPolicy.retryAfterSeconds($0) } }
    }

    private enum Outcome {
        case response(Response)
        case failure(CurlFailure)
    }

    /// `scheme://domain:port`, for messages.
    var serverAddress: String { "\(server.scheme)://\(server.domain):\(server.port)" }

    private func url(_ endpoint: Configuration.Server.Endpoint, id: String? = nil) throws -> URL {
        guard let url = server.url(endpoint, id: id) else {
            throw TransportError.invalidURL(endpoint: "\(endpoint)")
        }
        return url
    }

    /// The options every request sets. TLS verification is never turned off: libcurl's defaults
    /// (VERIFYPEER and VERIFYHOST on) stay, with `Server.CAFile` as the trusted CAs when set.
    func commonOptions(url: URL) -> [CurlOption] {
        var options: [CurlOption] = [
            .string(CURLOPT_URL, url.absoluteString),
            .long(CURLOPT_NOSIGNAL, 1),
            .long(CURLOPT_CONNECTTIMEOUT, connectTimeout),
            .long(CURLOPT_LOW_SPEED_LIMIT, lowSpeedLimit),
            .long(CURLOPT_LOW_SPEED_TIME, lowSpeedTime),
            .string(CURLOPT_USERAGENT, Self.userAgent),
            .long(CURLOPT_FOLLOWLOCATION, 0),
        ]
        if let caFile = server.caFile { options.append(.string(CURLOPT_CAINFO, caFile)) }
        return options
    }

    /// Sends `request`, repeating it as `retry` and the request's scope allow. Returns the last
    /// response (whatever its status); throws when the last try failed without one.
    private func exchange(_ request: Request) throws -> Response {
        var attempt = 0
        while true {
            attempt += 1
            attemptsOfLastRequest = attempt
            let delay: TimeInterval
            switch try performOnce(request) {
            case .response(let response):
                guard request.retryScope == .transientFailures,
                      RetryPolicy.retryableStatuses.contains(response.status), attempt < retry.attempts else {
                    return response
                }
                delay = retry.delay(afterAttempt: attempt, retryAfter: response.retryAfter)
            case .failure(let failure):
                guard attempt < retry.attempts, Self.isRetryable(failure, scope: request.retryScope) else {
                    throw transportError(for: failure, url: request.url)
                }
                delay = retry.delay(afterAttempt: attempt)
            }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        }
    }

    private func handle() throws -> CurlEasy {
        if let easy { return easy }
        let made = try CurlEasy()
        easy = made
        return made
    }

    private func performOnce(_ request: Request) throws -> Outcome {
        let easy = try handle()
        try easy.reset()
        try easy.apply(commonOptions(url: request.url))
        var lines = ["Accept: application/json"]
        if request.authorized, let token { lines.append("Authorization: Bearer \(token)") }
        var multipart: MultipartBody?
        switch request.method {
        case .get:
            try easy.apply(.long(CURLOPT_HTTPGET, 1))
        case .postJSON(let data):
            lines.append("Content-Type: application/json")
            // The size first, so COPYPOSTFIELDS copies exactly these bytes.
            try easy.apply(.offset(CURLOPT_POSTFIELDSIZE_LARGE, Int64(data.count)))
            try easy.apply(.string(CURLOPT_COPYPOSTFIELDS, String(decoding: data, as: UTF8.self)))
        case .postMultipart(let files):
            let body = try MultipartBody(easy: easy, files: files)
            multipart = body
            try easy.setMime(body.mime)
        }
        let headers = try CurlHeaderList(lines)
        try easy.setHeaders(headers.list)
        let state = TransferState(maxBodyBytes: responseLimit, progress: request.progress)
        try state.install(on: easy)

        let failure = withExtendedLifetime((state, headers, multipart)) { easy.perform() }
        // The handle must not point at the header list and MIME body once they are freed.
        try easy.setMime(nil)
        try easy.setHeaders(nil)

        if let failure {
            if state.bodyOverflowed {
                throw TransportError.responseTooLarge(url: request.url.absoluteString, limit: responseLimit)
            }
            return .failure(failure)
        }
        let status = easy.longInfo(CURLINFO_RESPONSE_CODE) ?? 0
        if let progress = request.progress, status == 200 || status == 201 {
            let sent = easy.offsetInfo(CURLINFO_SIZE_UPLOAD_T) ?? 0
            progress.reportCompletion(sent: sent, total: max(sent, progress.lastTotal))
        }
        return .response(Response(status: status, body: state.body, headers: state.headers,
                                  uploadBytes: multipart?.fileBytes ?? 0))
    }

    /// Network failures worth another try. A login (`connectionFailures`) is repeated only when it
    /// cannot have reached the server: no address, no connection, a timeout before anything was sent.
    static func isRetryable(_ failure: CurlFailure, scope: Request.RetryScope) -> Bool {
        switch scope {
        case .connectionFailures:
            switch failure.code {
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT: return true
            case CURLE_OPERATION_TIMEDOUT: return !failure.requestSent
            default: return false
            }
        case .transientFailures:
            switch failure.code {
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR,
                 CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING:
                return true
            default:
                return false
            }
        }
    }

    private func transportError(for failure: CurlFailure, url: URL) -> TransportError {
        let detail = failure.detail
        switch failure.code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return .cannotResolveHost(host: server.domain, detail: detail)
        case CURLE_COULDNT_CONNECT:
            return failure.osErrno == Int(ECONNREFUSED)
                ? .connectionRefused(url: serverAddress, detail: detail)
                : .cannotConnect(url: serverAddress, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: serverAddress, detail: detail)
        case CURLE_PEER_FAILED_VERIFICATION:
            return .certificateNotTrusted(host: server.domain, detail: detail)
        case CURLE_SSL_CACERT_BADFILE:
            return .caFileUnusable(path: server.caFile ?? "(the system's CA bundle)", detail: detail)
        case CURLE_SSL_CONNECT_ERROR:
            return .tlsFailed(host: server.domain, detail: detail)
        default:
            return .network(url: serverAddress, detail: detail)
        }
    }

    /// The error for a response that is not the success the endpoint expects.
    /// `login`: the request was the login itself, so a 401 means wrong credentials, not an expired session.
    private func failure(for response: Response, notFound what: String, login: Bool = false) -> TransportError {
        let message = ErrorBody.message(in: response.body)
        switch response.status {
        case 401:
            return login ? .wrongCredentials : .sessionExpired
        case 403:
            return .forbidden(message: message ?? "your role may not do this (403)")
        case 404:
            return .notFound(what: what)
        case 409:
            return .conflict(message: message ?? "a different upload already used this form's id (409)")
        case 413:
            return .uploadTooLarge(message: message, uploadBytes: response.uploadBytes)
        case 429:
            return .tooManyRequests(message: message, attempts: attemptsOfLastRequest)
        case 500...599:
            return .serverError(status: response.status, message: message, attempts: attemptsOfLastRequest)
        case 200...299:
            return .badResponse(expected: "what the API promises", detail: Self.describe(response))
        default:
            return .unexpectedStatus(status: response.status, message: message)
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, from response: Response, expected: String) throws -> T {
        do {
            return try WireJSON.decoder().decode(type, from: response.body)
        } catch {
            throw TransportError.badResponse(expected: expected, detail: Self.describe(response))
        }
    }

    /// Status, content type and the start of the body, for a `badResponse`.
    static func describe(_ response: Response) -> String {
        var parts = ["status \(response.status)"]
        if let type = response.header("Content-Type") { parts.append(type) }
        let start = String(decoding: response.body.prefix(60), as: UTF8.self)
            .map { $0.isNewline || $0 == "\t" ? " " : $0 }
        let text = String(start).trimmingCharacters(in: .whitespaces)
        parts.append(text.isEmpty ? "empty body" : "starting \"\(text)\(response.body.count > 60 ? "…" : "")\"")
        return parts.joined(separator: ", ")
    }
}
