import Hummingbird
import MIKit

/// `GET Server.Paths.TemplateList`, `GET Server.Paths.Template` and the pictures its
/// questions show, `GET Server.Paths.Template/files/{name}`.
struct TemplateController {
    let listPath: String
    let templatePath: String
    let catalog: TemplateCatalog
    let sessions: SessionMiddleware

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.get(RouterPath(listPath), use: list)
        routes.get(RouterPath(templatePath), use: show)
        routes.get(RouterPath(templatePath + "/files/{name}"), use: file)
        return routes
    }

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        let catalog = self.catalog
        let entries = try await Blocking.run { catalog.templates() }
        return try JSONResponse.make(.ok, entries.map {
            TemplateListing(id: $0.id, title: $0.title, version: $0.version, sha256: $0.sha256)
        })
    }

    @Sendable func show(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try context.parameters.decoded("id")
        let catalog = self.catalog
        guard let entry = try await Blocking.run({ catalog.template(id: id) }) else {
            throw HTTPError(.notFound, message: "no template \"\(SafeName.printable(id))\" on the server — `mi templates --refresh` lists the templates it has")
        }
        return Response(status: .ok, headers: [.contentType: "application/json", .eTag: "\"\(entry.sha256)\""],
                        body: .init(byteBuffer: ByteBuffer(bytes: entry.data)))
    }

    @Sendable func file(_ request: Request, context: ServerContext) async throws -> Response {
        try await Self.file(id: context.parameters.decoded("id"), name: context.parameters.decoded("name"), catalog: catalog)
    }

    /// The response for file `name` of template `id`: the API and the office pages serve it alike.
    static func file(id: String, name: String, catalog: TemplateCatalog) async throws -> Response {
        switch try await Blocking.run({ catalog.file(id: id, name: name) }) {
        case .success(let file):
            return Response(status: .ok, headers: [.contentType: file.contentType, .eTag: "\"\(file.sha256)\"",
                                                   .cacheControl: "private, no-cache"],
                            body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
        case .failure(.notNamed):
            throw HTTPError(.notFound, message: "template \"\(SafeName.printable(id))\" has no file \"\(SafeName.printable(name))\" — the files a template shows are named by its questions' image")
        case .failure(.missing):
            throw HTTPError(.notFound, message: "the file \"\(SafeName.printable(name))\" of template \"\(SafeName.printable(id))\" is missing on the server — tell the administrator to copy it into the template's folder")
        }
    }
}
