import Foundation
import HTTPTypes
import Hummingbird
import MIKit

/// Where the media files a submission's manifest lists as resumable uploads come from.
protocol ResumableUploadSource: Sendable {
    /// The finished upload `uploadID`, moved to `destination`; refuses (400) an upload that is
    /// unknown, another user's, for another form or name, or unfinished.
    func take(_ uploadID: String, owner: String, formID: String, name: String,
              to destination: URL) async throws -> (size: Int64, sha256: String)
}

/// `PUT Server.Paths.Submit/{id}` (the upload with its manifest up front), `POST Server.Paths.Submit`
/// (the same without: multipart only, as `curl -F` sends it), `GET Server.Paths.Submit` (a page
/// of summaries), `GET Server.Paths.Submit/{id}` (the receipt) and
/// `GET Server.Paths.Submit/{id}/media/{name}` (a media file, with Range): foremen any, a
/// technician only their own forms'.
struct SubmissionController {
    /// Body bytes handed to the thread pool at once: bounds memory per upload and keeps the
    /// number of thread hops low.
    static let batchBytes = 256 * 1024

    let path: String
    let layout: DataLayout
    let repository: any SubmissionRepository
    let sessions: SessionMiddleware
    let maxUploadBytes: Int64
    /// `Server.AcceptSimulated`: whether forms made by `mi simulate` are stored.
    let acceptSimulated: Bool
    let resumable: (any ResumableUploadSource)?
    /// The published templates: a form's consent acceptance must be for the text the server
    /// published for its template version, not only for the copy the form carries.
    let catalog: TemplateCatalog?
    /// Who the form's user is and whether its template is known: checked before anything is stored.
    let acceptance: SubmissionAcceptance
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.post(RouterPath(path), use: upload)
        routes.get(RouterPath(path), use: list)
        routes.get(RouterPath(path + "/{id}"), use: show)
        routes.put(RouterPath(path + "/{id}"), use: put)
        routes.get(RouterPath(path + "/{id}/media/{name}"), use: media)
        return routes
    }

    // MARK: - Receipts

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        let query = try Self.query(request, session: try context.requireSession())
        return try JSONResponse.make(.ok, try await repository.submissions(query))
    }

    /// The listing's query from the request's parameters; a technician's is restricted to
    /// their own forms whatever `user` says.
    static func query(_ request: Request, session: SessionClaims) throws -> SubmissionQuery {
        var query: SubmissionQuery
        do {
            query = try SubmissionQuery(parameters: FormQuery.parameters(request.uri.query))
        } catch {
            throw HTTPError(.badRequest, message: error.errorDescription ?? error.code)
        }
        if session.role != .foreman { query.user = session.sub }
        return query
    }

    /// A media file of a submission, whole or the one byte range asked for.
    @Sendable func media(_ request: Request, context: ServerContext) async throws -> Response {
        let receipt = try await SubmissionAccess.receipt(try context.parameters.require("id"), for: try context.requireSession(),
                                                         in: repository)
        let name = try context.parameters.decoded("name")
        guard name != UploadPart.formName, SafeName.problem(name) == nil, let part = receipt.part(named: name) else {
            throw HTTPError(.notFound, message: "submission \(receipt.id) has no media file \"\(SafeName.printable(name))\" — see its receipt for the names")
        }
        let path = layout.submission(receipt.id).appendingPathComponent(part.filename).path
        var headers: HTTPFields = [.contentType: MediaKind.contentType(ofFileNamed: name), .acceptRanges: "bytes"]
        switch ByteRange(header: request.headers[.range], size: part.size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(part.size)"
            return try JSONResponse.error(.rangeNotSatisfiable, message: "the range asked for is outside \(name)'s \(part.size) bytes", headers: headers)
        case .whole:
            headers[.contentLength] = String(part.size)
            let body = try await FileIO().loadFile(path: path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(part.size)"
            headers[.contentLength] = String(range.count)
            let body = try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }

    @Sendable func show(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let text = try context.parameters.require("id")
        // A technician sees only receipts of their own forms; another's is "not found", so its
        // existence is not revealed either.
        guard let id = FormID(text)?.description, let receipt = try await repository.receipt(id: id),
              session.role == .foreman || receipt.user == session.sub
        else {
            throw HTTPError(.notFound, message: "no submission \(SafeName.printable(text)) on the server — upload the form again with `mi upload`")
        }
        return try JSONResponse.make(.ok, receipt)
    }

    // MARK: - Upload

    @Sendable func upload(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload forms")
        try checkLength(request)
        return try await receiveAndRecord(request, context: context, session: session, id: nil, manifest: nil)
    }

    /// The upload of form `{id}`. With a manifest, a form the server already holds is answered
    /// before any body byte is read (so with `Expect: 100-continue` the body is never sent):
    /// 200 with the stored receipt when the manifest matches it, 409 when it does not.
    @Sendable func put(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload forms")
        let text = try context.parameters.require("id")
        guard let formID = FormID(text) else {
            throw HTTPError(.badRequest, message: "\(SafeName.printable(text)) is not a form id (a UUID) — use `mi upload`")
        }
        let id = formID.description
        var manifest: UploadManifest?
        if let name = HTTPField.Name(UploadManifest.headerName), let value = request.headers[name] {
            do {
                manifest = try UploadManifest(headerValue: value)
            } catch {
                throw HTTPError(.badRequest, message: "\(error.localizedDescription) — use `mi upload`")
            }
        }
        try checkLength(request)
        if let manifest, let stored = try await repository.receipt(id: id) {
            switch manifest.compare(with: stored) {
            case .same, .sameShape:
                context.logger.info("submission already stored, answered before the body", metadata: [
                    "id": .string(id), "bodyBytes": .stringConvertible(0),
                ])
                return try JSONResponse.make(.ok, stored)
            case .different:
                context.logger.info("submission refused before the body: the server holds other content", metadata: [
                    "id": .string(id), "bodyBytes": .stringConvertible(0),
                ])
                throw conflict(stored)
            }
        }
        return try await receiveAndRecord(request, context: context, session: session, id: id, manifest: manifest)
    }

    private func checkLength(_ request: Request) throws {
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > maxUploadBytes {
            throw tooLarge(length)
        }
    }

    private func conflict(_ stored: Receipt) -> HTTPError {
        HTTPError(.conflict, message: "the server already holds form \(stored.id) (\(stored.formName)) with different content — the local copy was changed after an upload; keep it and tell the administrator")
    }

    /// Receives the multipart body into a folder of its own, adds the manifest's resumable
    /// uploads, checks everything against form.json (and the path's id and the manifest), then
    /// commits it under the form's id in one transaction.
    private func receiveAndRecord(_ request: Request, context: ServerContext, session: SessionClaims,
                                  id: String?, manifest: UploadManifest?) async throws -> Response {
        let boundary = try MultipartReceiver.boundary(contentType: request.headers[.contentType])
        let folder = layout.receiving.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        try await Blocking.run { try DurableFile.makeFolder(folder) }
        do {
            let body = try await receive(request.body, boundary: boundary, into: folder)
            let (form, claimedScores) = try await Blocking.run { try Self.decodeForm(in: folder, parts: body) }
            var parts = body
            let formID = form.id.description
            if let id, id != formID {
                throw HTTPError(.badRequest, message: "the form part is form \(formID), but the upload is for \(id) — use `mi upload`")
            }
            try await acceptance.check(form)
            if form.isSimulated && !acceptSimulated { throw Self.simulatedRefused(form) }
            if let digest = Self.requiredConsent(of: form, catalog: catalog), form.consent?.sha256 != digest {
                throw Self.consentRefused(form, digest: digest)
            }
            if let manifest {
                parts = try await takeResumable(manifest, received: parts, owner: session.sub, formID: formID, folder: folder)
            }
            try Self.checkMedia(parts, against: form)
            // The server's own scores from the answers; form.json's snapshot is only compared.
            let scores = form.scoreValues
            if let claimedScores, claimedScores != scores {
                context.logger.info("the form's scores differ from the server's; the server's are stored", metadata: [
                    "id": .string(formID), "claimed": .string(Self.describe(claimedScores)),
                    "computed": .string(Self.describe(scores ?? [:])),
                ])
            }
            let receipt = Receipt(
                id: formID, user: form.user, formName: form.name, uploadedBy: session.sub,
                receivedAt: Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down)),
                parts: parts.map { Receipt.Part(name: $0.name, filename: $0.filename, size: $0.size, sha256: $0.sha256) },
                scores: scores)
            let layout = self.layout
            let destination = layout.submission(receipt.id)
            let outcome = try await repository.record(receipt, form: form, placeFiles: {
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
                guard stored.hasSameContent(as: receipt) else { throw conflict(stored) }
                return try JSONResponse.make(.ok, stored)
            case .taken(let first):
                try? await Blocking.run { try FileManager.default.removeItem(at: folder) }
                throw Self.oncePerUserRefused(form, first: first)
            }
        } catch {
            try? await Blocking.run { try FileManager.default.removeItem(at: folder) }
            throw error
        }
    }

    /// The parts in the manifest's order: those received in the body, checked against their
    /// entries, and the resumable uploads the manifest names, moved into `folder`.
    private func takeResumable(_ manifest: UploadManifest, received: [ReceivedPart], owner: String, formID: String,
                               folder: URL) async throws -> [ReceivedPart] {
        func mismatch(_ problem: String) -> HTTPError {
            HTTPError(.badRequest, message: "the upload does not match its \(UploadManifest.headerName) header: \(problem) — use `mi upload`")
        }
        for part in received {
            guard let entry = manifest.entry(named: part.name) else { throw mismatch("part \"\(SafeName.printable(part.name))\" is not listed") }
            guard entry.upload == nil else { throw mismatch("\"\(SafeName.printable(part.name))\" is both in the body and a resumable upload") }
            guard entry.size == part.size, entry.sha256 == nil || entry.sha256 == part.sha256 else {
                throw mismatch("\"\(SafeName.printable(part.name))\" arrived with another size or SHA-256 than listed")
            }
        }
        var parts: [ReceivedPart] = []
        for entry in manifest.entries {
            if let part = received.first(where: { $0.name == entry.name }) {
                parts.append(part)
                continue
            }
            guard let upload = entry.upload else { throw mismatch("\"\(SafeName.printable(entry.name))\" is listed but not in the body") }
            if let reason = SafeName.problem(entry.name), entry.name != UploadPart.formName {
                throw HTTPError(.badRequest, message: "media \"\(SafeName.printable(entry.name))\" cannot be stored: \(reason) — rename the media file")
            }
            guard let resumable else {
                throw HTTPError(.badRequest, message: "this server takes no resumable uploads — use `mi upload` with a smaller Server.ResumableThresholdBytes")
            }
            let (size, sha256) = try await resumable.take(upload, owner: owner, formID: formID, name: entry.name,
                                                          to: folder.appendingPathComponent(entry.name))
            guard size == entry.size, entry.sha256 == nil || entry.sha256 == sha256 else {
                throw mismatch("the resumable upload of \"\(SafeName.printable(entry.name))\" has another size or SHA-256 than listed")
            }
            parts.append(ReceivedPart(name: entry.name, filename: entry.name, fileName: entry.name, size: size, sha256: sha256))
        }
        if !parts.isEmpty { try await Blocking.run { try DurableFile.syncFolder(folder) } }
        return parts
    }

    /// 422 for a form made by `mi simulate`, unless the server is set to accept them: simulated
    /// answers must never be mistaken for real inspections.
    static func simulatedRefused(_ form: Form) -> HTTPError {
        HTTPError(.unprocessableContent, message: "form \(form.id.description) (\(SafeName.printable(form.name))) holds simulated answers (made by `mi simulate`), not a real inspection — this server refuses simulated forms; to accept them (a demo or test server) set Server.AcceptSimulated to true in its Config.plist")
    }

    /// 422 `consent-required` for a form of a template with a consent text whose acceptance is
    /// missing or is for another text than the form's own copy of the template holds.
    static func consentRefused(_ form: Form, digest: String) -> CodedRefusal {
        let which = form.consent.map { "its acceptance is for another text (SHA-256 \(SafeName.printable($0.sha256)))" }
            ?? "it has no acceptance"
        return CodedRefusal(status: .unprocessableContent, code: APIErrorBody.consentRequiredCode, message: "form \(form.id.description) (\(SafeName.printable(form.name))) needs the respondent's acceptance of the consent text of template \(form.template.id) (SHA-256 \(digest)), but \(which) — the form was not stored; the technician accepts it with `mi fill` or `mi answer --accept-consent` before submitting")
    }

    /// The SHA-256 of the consent text `form`'s acceptance must be for, if any: the text the
    /// server published for the form's template version — a form whose copy of the template lost
    /// or changed the text is not taken on its word — or, for a version the server does not have
    /// (published elsewhere, since removed), the text of the form's own copy.
    static func requiredConsent(of form: Form, catalog: TemplateCatalog?) -> String? {
        if let entry = catalog?.template(id: form.template.id, version: form.template.version) {
            return entry.consentDigest
        }
        return form.template.consentDigest
    }

    /// 409 `once-per-user` naming the user's first submission of the template.
    static func oncePerUserRefused(_ form: Form, first: SubmissionSummary) -> CodedRefusal {
        let submitted = (first.submittedAt ?? first.receivedAt).formatted(Date.ISO8601FormatStyle().year().month().day())
        return CodedRefusal(status: .conflict, code: APIErrorBody.oncePerUserCode, message: "template \(form.template.id) is answered once per person and \(form.user) already has a submission of it: form \(SafeName.printable(first.formName)) (id \(first.id)), submitted \(submitted) — form \(form.id.description) (\(SafeName.printable(form.name))) was not stored")
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
        var batch = BodyBatch(minimumBytes: Self.batchBytes)
        for try await buffer in body {
            total += Int64(buffer.readableBytes)
            if total > maxUploadBytes { throw tooLarge(nil) }
            if let full = batch.add(buffer) {
                try await Blocking.run { try receiver.consume(full) }
            }
        }
        let rest = batch.take()
        return try await Blocking.run {
            try receiver.consume(rest)
            return try receiver.finish()
        }
    }

    /// `key=value, …` in key order, for the log.
    private static func describe(_ scores: [String: ScoreValue]) -> String {
        scores.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.display)" }.joined(separator: ", ")
    }

    /// The received form, and the scores its form.json claims (compared, never stored).
    private static func decodeForm(in folder: URL, parts: [ReceivedPart]) throws -> (Form, [String: ScoreValue]?) {
        guard parts.contains(where: { $0.name == UploadPart.formName }) else {
            throw HTTPError(.badRequest, message: "the upload has no part named \"\(UploadPart.formName)\" holding \(UploadPart.formFilename) — use `mi upload`")
        }
        let data = try Data(contentsOf: folder.appendingPathComponent(UploadPart.formFilename))
        do {
            let form = try FormFile.decode(data)
            try TextRules.check(form)
            do {
                try form.checkStoredAnswers()
            } catch let error as AnswerError {
                throw HTTPError(.unprocessableContent, message: "form \(form.id.description) (\(SafeName.printable(form.name))) was not stored: question \(error.question): \(error.rule) — MI never stores such an answer, so form.json was written or changed by something else; check it with `mi review`")
            }
            return (form, FormFile.claimedScores(data))
        } catch let error as HTTPError {
            throw error
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
