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
        try await TemplateFiles.response(id: context.parameters.decoded("id"), name: context.parameters.decoded("name"), catalog: catalog)
    }
}
