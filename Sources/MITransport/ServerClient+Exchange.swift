import CCurl
import Foundation
import MIKit

/// One request on the wire: the libcurl options, the transfer, and the retries `RetryPolicy`
/// and the request's scope allow.
extension ServerClient {
    struct Request {
        enum Method {
            case get
            case head
            case delete
            case postJSON(Data)
            /// A POST without a body (the creation of a resumable upload).
            case postEmpty
            /// The form and its media as multipart/form-data, with the manifest up front.
            case putMultipart(MultipartUpload)
            /// The next bytes of a file as `application/offset+octet-stream` (a resumable
            /// upload's chunk), read and hashed while sending.
            case patch(PatchBody)
        }

        /// Which failures may be repeated: temporary ones (network errors, 408, 429, 5xx), only
        /// a failure before the request was sent (nothing reached the server), or none (a body
        /// read from a file as it is sent cannot be sent again: the caller starts over).
        enum RetryScope { case transientFailures, connectionFailures, never }

        var endpoint: Configuration.Server.Endpoint
        var url: URL
        var method: Method
        var authorized: Bool
        var retryScope: RetryScope
        var progress: ProgressThrottle?
        /// More header lines (`Name: value`).
        var headers: [String] = []
        /// Where the body goes (a file, hashed as written) instead of memory.
        var download: DownloadSink?
    }

    struct Response {
        var status: Int
        var body: Data
        var headers: [(name: String, value: String)]
        /// Bytes of files sent (multipart uploads), for a 413's message.
        var uploadBytes: Int64
        /// Body bytes that went on the wire.
        var bytesSent: Int64 = 0

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        var retryAfter: TimeInterval? { header("Retry-After").flatMap { RetryPolicy.retryAfterSeconds($0) } }
    }

    enum Outcome {
        case response(Response)
        case failure(CurlFailure)
    }

    /// libcurl's upload buffer: larger than its 64 KiB default, so a file is read and hashed in
    /// fewer, bigger steps.
    static let uploadBufferSize = 256 << 10

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
    func exchange(_ request: Request) throws -> Response {
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
        lines += request.headers
        var multipart: MultipartBody?
        switch request.method {
        case .get:
            try easy.apply(.long(CURLOPT_HTTPGET, 1))
        case .head:
            try easy.apply(.long(CURLOPT_NOBODY, 1))
        case .delete:
            try easy.apply(.string(CURLOPT_CUSTOMREQUEST, "DELETE"))
        case .postJSON(let data):
            lines.append("Content-Type: application/json")
            // The size first, so COPYPOSTFIELDS copies exactly these bytes.
            try easy.apply(.offset(CURLOPT_POSTFIELDSIZE_LARGE, Int64(data.count)))
            try easy.apply(.string(CURLOPT_COPYPOSTFIELDS, String(decoding: data, as: UTF8.self)))
        case .postEmpty:
            try easy.apply(.offset(CURLOPT_POSTFIELDSIZE_LARGE, 0))
            try easy.apply(.string(CURLOPT_COPYPOSTFIELDS, ""))
        case .putMultipart(let upload):
            let body = try MultipartBody(easy: easy, parts: upload.parts)
            multipart = body
            try easy.setMime(body.mime)
            try easy.apply(.string(CURLOPT_CUSTOMREQUEST, "PUT"))
            try easy.apply(.long(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferSize))
            // Asked for explicitly, whatever the body's size: the server answers a retry of a
            // form it already holds before a byte of the body is sent.
            lines.append("Expect: 100-continue")
            lines.append("\(UploadManifest.headerName): \(upload.manifest.headerValue)")
        case .patch(let body):
            lines.append("Content-Type: application/offset+octet-stream")
            try easy.apply(.long(CURLOPT_UPLOAD, 1))
            try easy.apply(.string(CURLOPT_CUSTOMREQUEST, "PATCH"))
            try easy.apply(.offset(CURLOPT_INFILESIZE_LARGE, body.length))
            try easy.apply(.long(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferSize))
            try easy.setReadFunction(PatchBody.read)
            try easy.setPointer(CURLOPT_READDATA, body.opaque)
        }
        let headers = try CurlHeaderList(lines)
        try easy.setHeaders(headers.list)
        request.download?.restart()
        let state = TransferState(maxBodyBytes: responseLimit, progress: request.progress, sink: request.download)
        try state.install(on: easy)

        let failure = withExtendedLifetime((state, headers, multipart)) { easy.perform() }
        // The handle must not point at the header list and MIME body once they are freed.
        try easy.setMime(nil)
        try easy.setHeaders(nil)
        let sent = easy.offsetInfo(CURLINFO_SIZE_UPLOAD_T) ?? 0
        if case .putMultipart(let upload) = request.method, let multipart {
            upload.learn(from: multipart, bytesSent: sent)
            // A file that could not be read or changed while it was sent: not worth a retry.
            if let error = multipart.sourceError { throw error }
        }
        if case .patch(let body) = request.method, let error = body.error { throw error }

        if let failure {
            if let sink = request.download {
                if sink.overflowed { throw TransportError.responseTooLarge(url: request.url.absoluteString, limit: Int(sink.limit)) }
                if let code = sink.writeError {
                    throw StoreError.io(operation: "write", path: sink.file.path, reason: String(cString: strerror(code)))
                }
            }
            if state.bodyOverflowed {
                throw TransportError.responseTooLarge(url: request.url.absoluteString, limit: responseLimit)
            }
            return .failure(failure)
        }
        let status = easy.longInfo(CURLINFO_RESPONSE_CODE) ?? 0
        if let progress = request.progress, status == 200 || status == 201 {
            progress.reportCompletion(sent: sent, total: max(sent, progress.lastTotal))
        }
        return .response(Response(status: status, body: state.body, headers: state.headers,
                                  uploadBytes: multipart?.fileBytes ?? 0, bytesSent: sent))
    }

    /// Network failures worth another try. A login (`connectionFailures`) is repeated only when it
    /// cannot have reached the server: no address, no connection, a timeout before anything was sent.
    static func isRetryable(_ failure: CurlFailure, scope: Request.RetryScope) -> Bool {
        switch scope {
        case .never:
            return false
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
}
