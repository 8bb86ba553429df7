import Hummingbird

/// `GET /health`: no token, no directory, no database — the process answers.
struct HealthController {
    static let path = "/health"

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.get(RouterPath(Self.path)) { _, _ in try JSONResponse.make(.ok, ["status": "ok"]) }
        return routes
    }
}
