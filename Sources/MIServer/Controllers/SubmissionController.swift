import Foundation
import HTTPTypes
import Hummingbird
import MIKit

/// `PUT Server.Paths.Submit/{id}` (the upload with its manifest up front), `POST Server.Paths.Submit`
/// (the same without: multipart only, as `curl -F` sends it), `GET Server.Paths.Submit` (a page
/// of summaries), `GET Server.Paths.Submit/{id}` (the receipt) and
/// `GET Server.Paths.Submit/{id}/media/{name}` (a media file of the current version, with
/// Range; `…/{id}/versions/{n}/media/{name}` one of version n): foremen any, a
/// technician only their own forms'. The HTTP side only: what is taken in, and why not, is
/// `SubmissionIntake`'s.
struct SubmissionController {
    let path: String
    let layout: DataLayout
    let repository: any SubmissionRepository
    let sessions: SessionMiddleware
    let intake: SubmissionIntake

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.post(RouterPath(path), use: upload)
        routes.get(RouterPath(path), use: list)
        routes.get(RouterPath(path + "/{id}"), use: show)
        routes.put(RouterPath(path + "/{id}"), use: put)
        routes.get(RouterPath(path + "/{id}/media/{name}"), use: media)
        routes.get(RouterPath(path + "/{id}/versions/{version}/media/{name}"), use: media)
        return routes
    }

    // MARK: - Receipts

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        let query = try SubmissionQuery.visible(to: try context.requireSession(), query: request.uri.query)
        return try JSONResponse.make(.ok, try await repository.submissions(query))
    }

    /// A media file of a submission, whole or the one byte range asked for.
    @Sendable func media(_ request: Request, context: ServerContext) async throws -> Response {
        var receipt = try await SubmissionAccess.receipt(try context.parameters.require("id"), for: try context.requireSession(),
                                                         in: repository)
        if let number = context.parameters.get("version") {
            guard let version = try await repository.versions(id: receipt.id).first(where: { String($0.storedVersion) == number }) else {
                throw HTTPError(.notFound, message: "submission \(receipt.id) has no version \(SafeName.printable(number)) — see its versions")
            }
            receipt = version
        }
        let name = try context.parameters.decoded("name")
        guard name != UploadPart.formName, SafeName.problem(name) == nil, let part = receipt.part(named: name) else {
            throw HTTPError(.notFound, message: "submission \(receipt.id) has no media file \"\(SafeName.printable(name))\" — see its receipt for the names")
        }
        let path = layout.folder(of: receipt).appendingPathComponent(part.filename).path
        await context.audit.record(.mediaDownload, actor: try context.requireSession().sub, subject: receipt.id.description, detail: name)
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
        guard let id = FormID(text), let receipt = try await repository.receipt(id: id),
              session.role == .foreman || receipt.user == session.sub
        else {
            throw HTTPError(.notFound, message: "no submission \(SafeName.printable(text)) on the server — upload the form again with `mi upload`")
        }
        await context.audit.record(.submissionView, actor: session.sub, subject: receipt.id.description, detail: "receipt (API)")
        return try JSONResponse.make(.ok, receipt)
    }

    // MARK: - Upload

    @Sendable func upload(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload forms")
        try intake.checkLength(Self.declaredLength(request))
        return try await take(request, context: context, session: session, id: nil, manifest: nil)
    }

    /// The upload of form `{id}`. With a manifest, a form the server already holds is answered
    /// before any body byte is read (so with `Expect: 100-continue` the body is never sent):
    /// 200 with the stored receipt when the manifest matches it, 409 when it does not.
    @Sendable func put(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "upload forms")
        let id = try SubmissionIntake.formID(try context.parameters.require("id"))
        var manifest: UploadManifest?
        if let name = HTTPField.Name(UploadManifest.headerName), let value = request.headers[name] {
            manifest = try SubmissionIntake.manifest(value)
        }
        try intake.checkLength(Self.declaredLength(request))
        if let manifest, let stored = try await intake.answerBeforeBody(id: id, manifest: manifest, logger: context.logger) {
            await Self.auditUpload(stored, stored: false, context: context, session: session)
            return try JSONResponse.make(.ok, stored)
        }
        return try await take(request, context: context, session: session, id: id, manifest: manifest)
    }

    /// 201 with the receipt of a form stored now, 200 with the one the server already held.
    private func take(_ request: Request, context: ServerContext, session: SessionClaims, id: FormID?,
                      manifest: UploadManifest?) async throws -> Response {
        switch try await intake.take(request.body, contentType: request.headers[.contentType], uploadedBy: session.sub,
                                     id: id, manifest: manifest, logger: context.logger) {
        case .stored(let receipt):
            await Self.auditUpload(receipt, stored: true, context: context, session: session)
            return try JSONResponse.make(.created, receipt)
        case .alreadyStored(let receipt):
            await Self.auditUpload(receipt, stored: false, context: context, session: session)
            return try JSONResponse.make(.ok, receipt)
        }
    }

    /// The audit row of an upload taken: the form's id (a `POST` names it only in its body),
    /// and whether it was stored now, with its version when it is a later one. Refusals are
    /// `AuditMiddleware`'s to record.
    private static func auditUpload(_ receipt: Receipt, stored: Bool, context: ServerContext, session: SessionClaims) async {
        let version = receipt.storedVersion > 1 ? " as version \(receipt.storedVersion)" : ""
        await context.audit.record(.upload, actor: session.sub, subject: receipt.id.description,
                                   detail: (stored ? "stored" : "already stored") + version)
    }

    private static func declaredLength(_ request: Request) -> Int64? {
        request.headers[.contentLength].flatMap { Int64($0) }
    }
}
