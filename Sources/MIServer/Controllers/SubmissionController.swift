import Foundation
import Hummingbird
import MIKit

/// `POST Server.Paths.Submit` (the streamed, idempotent upload), `GET Server.Paths.Submit`
/// and `GET Server.Paths.Submit/{id}` (receipts: foremen any, a technician only their own forms').
struct SubmissionController {
    /// Body bytes handed to the thread pool at once: bounds memory per upload and keeps the
    /// number of thread hops low.
    static let batchBytes = 256 * 1024

    let path: String
    let layout: DataLayout
    let repository: any SubmissionRepository
    let sessions: SessionMiddleware
    let maxUploadBytes: Int64
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.post(RouterPath(path), use: upload)
        routes.get(RouterPath(path), use: list)
        routes.get(RouterPath(path + "/{id}"), use: show)
        return routes
    }

    // MARK: - Receipts

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requireForeman(toDo: "list the submissions")
        return try JSONResponse.make(.ok, try await repository.receipts())
    }

    @Sendable func show(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let text = try context.parameters.require("id")
        // A technician sees only receipts of their own forms; another's is "not found", so its
        // existence is not revealed either.
        guard let id = UUID(uuidString: text)?.uuidString.lowercased(), let receipt = try await repository.receipt(id: id),
              session.role == .foreman || receipt.user == session.sub
        else {
            throw HTTPError(.notFound, message: "no submission \(SafeName.printable(text)) on the server — upload the form again with `mi upload`")
        }
        return try JSONResponse.make(.ok, receipt)
    }

    // MARK: - Upload

    @Sendable func upload(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload forms")
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > maxUploadBytes {
            throw tooLarge(length)
        }
        let boundary = try MultipartReceiver.boundary(contentType: request.headers[.contentType])
        let folder = layout.incoming.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        try await Blocking.run { try DurableFile.makeFolder(folder) }
        do {
            let parts = try await receive(request.body, boundary: boundary, into: folder)
            let form = try await Blocking.run { try Self.decodeForm(in: folder, parts: parts) }
            try Self.checkMedia(parts, against: form)
            let receipt = Receipt(
                id: form.id.uuidString.lowercased(), user: form.user, formName: form.name, uploadedBy: session.sub,
                receivedAt: Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down)),
                parts: parts.map { Receipt.Part(name: $0.name, filename: $0.filename, size: $0.size, sha256: $0.sha256) })
            let layout = self.layout
            let destination = layout.submission(receipt.id)
            let outcome = try await repository.record(receipt, placeFiles: {
                try Self.place(folder, at: destination)
            }, removeFiles: {
                try? FileManager.default.removeItem(at: destination)
            })
            switch outcome {
            case .recorded(let stored):
                context.logger.info("submission stored", metadata: [
                    "id": .string(stored.id), "user": .string(stored.user), "parts": .stringConvertible(stored.parts.count),
                    "bytes": .stringConvertible(stored.parts.reduce(0) { $0 + $1.size }),
                ])
                return try JSONResponse.make(.created, stored)
            case .existing(let stored):
                try? await Blocking.run { try FileManager.default.removeItem(at: folder) }
                guard stored.hasSameContent(as: receipt) else {
                    throw HTTPError(.conflict, message: "the server already holds form \(stored.id) (\(stored.formName)) with different content — the local copy was changed after an upload; keep it and tell the administrator")
                }
                return try JSONResponse.make(.ok, stored)
            }
        } catch {
            try? await Blocking.run { try FileManager.default.removeItem(at: folder) }
            throw error
        }
    }

    private func tooLarge(_ length: Int64?) -> HTTPError {
        let size = length.map { "the upload (\($0) bytes)" } ?? "the upload"
        return HTTPError(.contentTooLarge, message: "\(size) is larger than the server's limit of \(maxUploadBytes) bytes — upload fewer or smaller media files, or ask the administrator to raise Server.MaxUploadBytes")
    }

    /// Streams the body through the multipart parser into `folder`, counting bytes as they
    /// arrive; stops with 413 the moment the count passes the limit.
    private func receive(_ body: RequestBody, boundary: String, into folder: URL) async throws -> [ReceivedPart] {
        let receiver = MultipartReceiver(boundary: boundary, folder: folder)
        var total: Int64 = 0
        var batch: [ByteBuffer] = []
        var batchBytes = 0
        for try await buffer in body {
            total += Int64(buffer.readableBytes)
            if total > maxUploadBytes { throw tooLarge(nil) }
            batch.append(buffer)
            batchBytes += buffer.readableBytes
            if batchBytes >= Self.batchBytes {
                let full = batch
                batch = []
                batchBytes = 0
                try await Blocking.run { try receiver.consume(full) }
            }
        }
        let rest = batch
        return try await Blocking.run {
            try receiver.consume(rest)
            return try receiver.finish()
        }
    }

    private static func decodeForm(in folder: URL, parts: [ReceivedPart]) throws -> Form {
        guard parts.contains(where: { $0.name == UploadPart.formName }) else {
            throw HTTPError(.badRequest, message: "the upload has no part named \"\(UploadPart.formName)\" holding \(UploadPart.formFilename) — use `mi upload`")
        }
        let data = try Data(contentsOf: folder.appendingPathComponent(UploadPart.formFilename))
        do {
            let form = try FormFile.decode(data)
            try TextRules.check(form)
            return form
        } catch let error as TextRuleError {
            throw HTTPError(.badRequest, message: "the form part was refused: \(error.errorDescription ?? error.code)")
        } catch let error as FormFileError {
            throw HTTPError(.badRequest, message: "the form part is not a valid form.json: \(error.reason) — check the form with `mi review`")
        } catch {
            throw HTTPError(.badRequest, message: "the form part is not a valid form.json: \(error) — check the form with `mi review`")
        }
    }

    /// The media parts must be exactly the media form.json's answers list.
    private static func checkMedia(_ parts: [ReceivedPart], against form: Form) throws {
        let listed = Set(form.answers.values.flatMap(\.media))
        for name in listed.sorted() {
            if let reason = SafeName.problem(name) {
                throw HTTPError(.badRequest, message: "form.json lists media \"\(SafeName.printable(name))\", which cannot be a file name: \(reason)")
            }
        }
        let received = Set(parts.map(\.name).filter { $0 != UploadPart.formName })
        let missing = listed.subtracting(received).sorted()
        let extra = received.subtracting(listed).sorted()
        guard missing.isEmpty && extra.isEmpty else {
            var problems: [String] = []
            if !missing.isEmpty { problems.append("missing \(missing.joined(separator: ", "))") }
            if !extra.isEmpty { problems.append("not listed in form.json: \(extra.joined(separator: ", "))") }
            throw HTTPError(.badRequest, message: "the media parts do not match form.json (\(problems.joined(separator: "; "))) — check the form's media with `mi media` and upload again")
        }
    }

    /// Moves the received folder to its submission folder in one rename. Runs inside the
    /// repository's transaction after the id was found free, so a folder already there has no
    /// committed row: a leftover of a failed commit, removed first.
    private static func place(_ folder: URL, at destination: URL) throws {
        do {
            try DurableFile.moveNoReplace(folder, to: destination)
        } catch StoreError.exists {
            try FileManager.default.removeItem(at: destination)
            try DurableFile.moveNoReplace(folder, to: destination)
        }
    }
}
