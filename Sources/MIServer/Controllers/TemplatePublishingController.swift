import Foundation
import Hummingbird
import MIKit

/// The office's template routes that are not pages: `POST /templates/check` (a draft in, its
/// problems and preview out), `POST /templates/publish` (a draft), `POST /templates/upload`
/// (a template file, multipart) and `GET /templates/{id}/versions/{version}` (a version's
/// exact bytes). Checking and publishing need the publish right (`PublishRight`); downloading
/// needs a session.
struct TemplatePublishingController {
    static let checkPath = "/templates/check"
    static let publishPath = "/templates/publish"
    static let uploadPath = "/templates/upload"
    static let versionPath = "/templates/{id}/versions/{version}"
    /// The upload form's file field.
    static let uploadField = "template"

    let publisher: TemplatePublisher
    /// What puts the session in the context (and checks CSRF on POSTs) before these routes.
    let middlewares: [any MiddlewareProtocol<Request, Response, ServerContext>]

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        for middleware in middlewares { routes.add(middleware: middleware) }
        routes.post(RouterPath(Self.checkPath), use: check)
        routes.post(RouterPath(Self.publishPath), use: publish)
        routes.post(RouterPath(Self.uploadPath), use: upload)
        routes.get(RouterPath(Self.versionPath), use: download)
        return routes
    }

    /// The answer to a publish: which version of which template is now the newest.
    struct Published: Codable, Equatable {
        var id: String
        var version: Int
        var fileName: String
    }

    @Sendable func check(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requirePublisher()
        let draft = try await Self.draft(request, context: context)
        let publisher = self.publisher
        return try JSONResponse.make(.ok, try await Blocking.run { publisher.check(draft) })
    }

    @Sendable func publish(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requirePublisher()
        let draft = try await Self.draft(request, context: context)
        let publisher = self.publisher
        return try await Self.answer(session: session, context: context) {
            try await Blocking.run { try publisher.publish(draft: draft) }
        }
    }

    /// Publishes the file of the form's `template` field as it is.
    @Sendable func upload(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requirePublisher()
        let file = try await Self.uploadedFile(request)
        let publisher = self.publisher
        return try await Self.answer(session: session, context: context) {
            try await Blocking.run { try publisher.publish(upload: file.data, fileName: file.filename) }
        }
    }

    @Sendable func download(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requireSession()
        let id = try context.parameters.require("id")
        guard let version = context.parameters.get("version", as: Int.self) else {
            throw HTTPError(.notFound, message: "a version is a whole number, as the templates page lists them")
        }
        let catalog = publisher.catalog
        guard let entry = try await Blocking.run({ catalog.template(id: id, version: version) }) else {
            throw HTTPError(.notFound, message: "the server has no version \(version) of template \"\(id)\" — the templates page lists the versions it has")
        }
        return Response(status: .ok, headers: [
            .contentType: "application/json",
            .contentDisposition: "attachment; filename=\"\(entry.fileName)\"",
            .eTag: "\"\(entry.sha256)\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: entry.data)))
    }

    // MARK: - Helpers

    /// 201 with what was published; 422 with the template's problems; 409 when the version is taken or not newer.
    private static func answer(session: SessionClaims, context: ServerContext,
                               _ publish: () async throws -> TemplateCatalog.Entry) async throws -> Response {
        do {
            let entry = try await publish()
            context.logger.info("\(session.sub) published template \(entry.id) v\(entry.version)")
            return try JSONResponse.make(.created, Published(id: entry.id, version: entry.version, fileName: entry.fileName))
        } catch let error as TemplateError {
            return try JSONResponse.make(.unprocessableContent, TemplateDraftReport(problems: TemplateDraftReport.problems(of: error), preview: ""))
        } catch let error as TemplatePublishError {
            throw HTTPError(.conflict, message: error.errorDescription ?? error.code)
        }
    }

    /// The request's JSON body, parsed but not yet validated.
    private static func draft(_ request: Request, context: ServerContext) async throws -> JSONValue {
        let buffer = try await request.body.collect(upTo: TemplateCatalog.maximumFileBytes)
        do {
            return try JSONValue.parse(Data(buffer: buffer))
        } catch {
            throw HTTPError(.badRequest, message: "the draft is not valid JSON — reload the editor")
        }
    }

    private static func uploadedFile(_ request: Request) async throws -> MultipartFileCollector.File {
        let boundary = try MultipartReceiver.boundary(contentType: request.headers[.contentType])
        let collector = MultipartFileCollector(field: uploadField, limit: TemplateCatalog.maximumFileBytes + 64 * 1024)
        do {
            try await collector.collect(request.body, boundary: boundary)
        } catch let error as MultipartSyntaxError {
            throw HTTPError(.badRequest, message: "the upload is not a valid form: \(error.problem) — choose the file again")
        }
        guard let file = collector.file, !file.data.isEmpty else {
            throw HTTPError(.badRequest, message: "no template file was sent — choose a .json file to upload")
        }
        let name = URL(fileURLWithPath: file.filename.isEmpty ? "upload.json" : file.filename).lastPathComponent
        return MultipartFileCollector.File(filename: SafeName.printable(name), data: file.data)
    }
}

extension ServerContext {
    /// The session's claims when the user may publish templates, else 403.
    func requirePublisher() throws -> SessionClaims {
        let session = try requireSession()
        guard session.mayPublish else {
            throw HTTPError(.forbidden, message: "you (\(session.sub)) may not publish templates — ask an administrator (LDAP.AdminGroup, or the foremen when it is not set)")
        }
        return session
    }
}
