import Foundation
import Hummingbird
import MIKit

/// `Server.Paths.Uploads`: resumable media uploads, tus 1.0.0 core with the creation,
/// checksum (crc32c, sha1, sha256), expiration and termination extensions. A finished upload is taken into
/// a submission by the submission endpoint (`ResumableUploads.take`).
struct ResumableUploadController {
    static let version = "1.0.0"
    static let extensions = "creation,checksum,expiration,termination"
    static let offsetContentType = "application/offset+octet-stream"

    let path: String
    let uploads: ResumableUploads
    let sessions: SessionMiddleware
    let maxUploadBytes: Int64

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: TusProtocolMiddleware(sessions: sessions))
        routes.on(RouterPath(path), method: .options, use: options)
        routes.post(RouterPath(path), use: create)
        routes.head(RouterPath(path + "/{id}"), use: head)
        routes.patch(RouterPath(path + "/{id}"), use: patch)
        routes.delete(RouterPath(path + "/{id}"), use: terminate)
        return routes
    }

    // MARK: - Discovery and creation

    @Sendable func options(_ request: Request, context: ServerContext) async throws -> Response {
        Response(status: .noContent, headers: [
            .tusVersion: Self.version, .tusExtension: Self.extensions,
            .tusChecksumAlgorithm: UploadChecksum.supportedAlgorithms, .tusMaxSize: String(maxUploadBytes),
        ])
    }

    @Sendable func create(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload media")
        guard let lengthText = request.headers[.uploadLength] else {
            throw HTTPError(.badRequest, message: "Upload-Length is missing — say how many bytes the file has (deferred lengths are not supported)")
        }
        guard let length = Self.integer(lengthText), length >= 1 else {
            throw HTTPError(.badRequest, message: "Upload-Length \"\(SafeName.printable(lengthText))\" is not a positive number of bytes")
        }
        guard length <= maxUploadBytes else {
            throw HTTPError(.contentTooLarge, message: "the file (\(length) bytes) is larger than the server's limit of \(maxUploadBytes) bytes — ask the administrator to raise Server.MaxUploadBytes")
        }
        let metadata = try Self.metadata(request.headers[.uploadMetadata])
        guard let formText = metadata["form"], let formID = FormID(formText) else {
            throw HTTPError(.badRequest, message: "Upload-Metadata needs \"form\": the base64 of the form's id (a UUID)")
        }
        guard let name = metadata["name"] else {
            throw HTTPError(.badRequest, message: "Upload-Metadata needs \"name\": the base64 of the media file's name")
        }
        if let reason = SafeName.problem(name) {
            throw HTTPError(.badRequest, message: "media \"\(SafeName.printable(name))\" cannot be stored: \(reason) — rename the media file")
        }
        guard name != UploadPart.formFilename else {
            throw HTTPError(.badRequest, message: "a media file may not be called \(UploadPart.formFilename) — rename the media file")
        }
        try await Self.requireNoBody(request)
        let (id, info) = try await uploads.create(formID: formID, name: name, length: length, owner: session.sub)
        return Response(status: .created, headers: [
            .location: path + "/" + id, .uploadExpires: Self.httpDate(info.expires),
        ])
    }

    // MARK: - An upload

    @Sendable func head(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload media")
        let (info, offset) = try await uploads.status(try Self.id(context), owner: session.sub)
        return Response(status: .ok, headers: [
            .uploadOffset: String(offset), .uploadLength: String(info.length),
            .uploadExpires: Self.httpDate(info.expires), .cacheControl: "no-store",
        ])
    }

    @Sendable func terminate(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload media")
        try await uploads.terminate(try Self.id(context), owner: session.sub)
        return Response(status: .noContent)
    }

    @Sendable func patch(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload media")
        let id = try Self.id(context)
        guard request.headers[.contentType].map(Self.mediaType) == Self.offsetContentType else {
            throw HTTPError(.unsupportedMediaType, message: "a PATCH body must be \(Self.offsetContentType) (got \(request.headers[.contentType].map { SafeName.printable($0) } ?? "no Content-Type"))")
        }
        guard let offsetText = request.headers[.uploadOffset], let offset = Self.integer(offsetText) else {
            throw HTTPError(.badRequest, message: "Upload-Offset is missing or not a number — ask the server for the offset (HEAD) and send it")
        }
        let expected = try Self.checksum(request.headers[.uploadChecksum])
        let appender = try await uploads.beginAppend(id, owner: session.sub, offset: offset,
                                                     checksum: expected?.algorithm ?? .crc32c)
        let ending: BodyEnding
        do {
            if let declared = request.headers[.contentLength].flatMap(Self.integer), declared > appender.length - offset {
                throw UploadAppender.tooLong(appender.length)
            }
            ending = try await Self.receive(request.body, into: appender)
        } catch {
            _ = try? await uploads.finishAppend(appender, keep: false)
            throw error
        }
        switch ending {
        case .cutOff(let error):
            // Without a checksum what arrived is good data (tus core); with one it cannot be checked.
            let kept = try await uploads.finishAppend(appender, keep: expected == nil)
            context.logger.notice("resumable upload: the client stopped sending mid-body", metadata: [
                "upload": .string(id), "offset": .stringConvertible(kept), "error": .string("\(error)"),
            ])
            throw HTTPError(.badRequest, message: "the body ended before it was complete — ask the server for the offset (HEAD) and continue from there")
        case .complete:
            if let expected, appender.bodyChecksum != expected {
                try await uploads.finishAppend(appender, keep: false)
                throw HTTPError(Self.checksumMismatch, message: "the body's \(expected.algorithm.rawValue) does not match Upload-Checksum; nothing of it was kept — send this part again")
            }
            let newOffset = try await uploads.finishAppend(appender, keep: true)
            return Response(status: .noContent, headers: [
                .uploadOffset: String(newOffset), .uploadExpires: Self.httpDate(appender.info.expires),
            ])
        }
    }

    /// tus's status for a body whose checksum does not match.
    static let checksumMismatch = HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch")

    enum BodyEnding {
        case complete
        /// The client stopped sending (the connection closed or broke mid-body).
        case cutOff(any Error)
    }

    /// Appends the body to the upload as it arrives, handing the thread pool a batch at a time;
    /// what arrived before a cut is written too.
    static func receive(_ body: RequestBody, into appender: UploadAppender) async throws -> BodyEnding {
        var iterator = body.makeAsyncIterator()
        var batch = BodyBatch(minimumBytes: SubmissionController.batchBytes)
        var ending = BodyEnding.complete
        while true {
            let next: ByteBuffer?
            do {
                next = try await iterator.next()
            } catch {
                ending = .cutOff(error)
                break
            }
            guard let buffer = next else { break }
            if let full = batch.add(buffer) {
                try await Blocking.run { try appender.append(full) }
            }
        }
        let rest = batch.take()
        if !rest.isEmpty { try await Blocking.run { try appender.append(rest) } }
        return ending
    }

    // MARK: - Headers

    private static func id(_ context: ServerContext) throws -> String {
        let text = try context.parameters.require("id")
        guard let id = ResumableUploads.canonicalID(text) else {
            throw HTTPError(.notFound, message: "no resumable upload \(SafeName.printable(text)) on the server — start the upload again")
        }
        return id
    }

    /// A non-negative decimal integer, digits only (tus headers allow nothing else).
    static func integer(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }

    static func mediaType(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// `Upload-Metadata`: comma-separated `key base64value` pairs (the value may be absent).
    static func metadata(_ header: String?) throws -> [String: String] {
        guard let header else {
            throw HTTPError(.badRequest, message: "Upload-Metadata is missing — send \"form\" and \"name\", each base64")
        }
        var result: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let fields = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard let key = fields.first, fields.count <= 2, result[String(key)] == nil else {
                throw HTTPError(.badRequest, message: "Upload-Metadata is malformed — send comma-separated \"key base64value\" pairs, each key once")
            }
            let encoded = fields.count == 2 ? String(fields[1]) : ""
            guard let data = Data(base64Encoded: encoded), let value = String(data: data, encoding: .utf8) else {
                throw HTTPError(.badRequest, message: "Upload-Metadata \"\(SafeName.printable(String(key)))\" is not base64 of UTF-8 text")
            }
            result[String(key)] = value
        }
        return result
    }

    /// `Upload-Checksum: <algorithm> <base64 digest>`; nil when absent.
    static func checksum(_ header: String?) throws -> UploadChecksum? {
        guard let header else { return nil }
        do {
            return try UploadChecksum(headerValue: header)
        } catch {
            throw HTTPError(.badRequest, message: error.errorDescription ?? error.code)
        }
    }

    /// Creation with an upload in the same request is not supported: the body must be empty.
    private static func requireNoBody(_ request: Request) async throws {
        let refusal = HTTPError(.badRequest, message: "creating an upload takes no body — create it, then send the data with PATCH")
        if let length = request.headers[.contentLength], length != "0" { throw refusal }
        for try await buffer in request.body where buffer.readableBytes > 0 { throw refusal }
    }

    /// An HTTP date (RFC 9110 IMF-fixdate), as `Upload-Expires` carries it.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// Every request but OPTIONS must say `Tus-Resumable: 1.0.0` (else 412 with `Tus-Version`) and
/// carry the session token; every response, errors included, says `Tus-Resumable: 1.0.0`.
/// OPTIONS (discovery) needs no token. Errors to HEAD go without a body, as HEAD requires.
struct TusProtocolMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    let sessions: SessionMiddleware

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response: Response
            if request.method == .options {
                response = try await next(request, context)
            } else {
                guard request.headers[.tusResumable] == ResumableUploadController.version else {
                    throw HTTPError(.preconditionFailed, headers: [.tusVersion: ResumableUploadController.version],
                                    message: "this endpoint speaks tus \(ResumableUploadController.version) only — send Tus-Resumable: \(ResumableUploadController.version)")
                }
                response = try await sessions.handle(request, context: context, next: next)
            }
            response.headers[.tusResumable] = ResumableUploadController.version
            return response
        } catch var error as HTTPError {
            error.headers[.tusResumable] = ResumableUploadController.version
            if request.method == .head {
                context.logger.debug("HEAD \(request.uri.path)", metadata: ["status": .stringConvertible(error.status.code), "error": .string(error.body ?? "")])
                return Response(status: error.status, headers: error.headers)
            }
            throw error
        }
    }
}
