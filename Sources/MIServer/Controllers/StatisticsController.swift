import Hummingbird
import MIKit

/// `GET Server.Paths.Template/stats` (`/api/v1/templates/{id}/stats?from=&to=&user=&version=&groupBy=`):
/// the statistics of a template's stored submissions as `TemplateStatistics` JSON. Foremen see
/// everyone's forms, a technician only their own.
struct StatisticsController {
    let templatePath: String
    let statistics: StoredStatistics
    let sessions: SessionMiddleware

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.get(RouterPath(templatePath + "/stats"), use: show)
        return routes
    }

    @Sendable func show(_ request: Request, context: ServerContext) async throws -> Response {
        let filters = try StoredStatistics.filters(request.uri.query, session: try context.requireSession())
        let id = try context.parameters.decoded("id")
        return try JSONResponse.make(.ok, try await statistics.statistics(of: id, filters: filters, logger: context.logger).statistics)
    }
}
