import Foundation
import Hummingbird
import MIKit

/// `GET /api/v1/audit` (foremen only): a page of the audit log as JSON, newest first, filtered
/// by `actor`, `action`, `from`/`to`, paged by `cursor`/`limit` (`AuditQuery`).
struct AuditController {
    static let path = "/api/v1/audit"

    let store: any AuditStore
    let sessions: SessionMiddleware

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.get(RouterPath(Self.path), use: list)
        return routes
    }

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requireForeman(toDo: "read the audit log")
        return try JSONResponse.make(.ok, try await store.page(try Self.query(request)))
    }

    /// The request's query, or 400 naming the parameter that is not understood.
    static func query(_ request: Request) throws -> AuditQuery {
        do {
            return try AuditQuery(parameters: FormQuery.parameters(request.uri.query))
        } catch {
            throw HTTPError(.badRequest, message: error.errorDescription ?? "the audit query is not understood")
        }
    }
}

/// The office's `/audit` (foremen only): the filter form (actor, action, dates) and one page of
/// the log, with a link to the next (older) page. Every value is HTML-escaped by the view.
struct AuditOfficePage {
    let views: OfficeViews
    let store: any AuditStore

    func register(on pages: RouteCollection<ServerContext>) {
        pages.get("audit", use: show)
    }

    @Sendable func show(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requireForeman(toDo: "read the audit log")
        let query = try AuditController.query(request)
        let page = try await store.page(query)
        let parameters = Dictionary(FormQuery.parameters(request.uri.query).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        var next: String?
        if let cursor = page.nextCursor {
            var kept = parameters.filter { ["actor", "action", "from", "to", "limit"].contains($0.key) && !$0.value.isEmpty }
            kept["cursor"] = cursor
            next = "/audit?" + kept.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(FormQuery.encoded($0.value, keeping: ""))" }.joined(separator: "&")
        }
        var values: [String: Any] = [
            "rows": page.events.map { event -> [String: Any] in
                ["seq": String(event.seq), "at": event.atText, "actor": event.actor, "address": event.address,
                 "action": event.action, "subject": event.subject, "detail": event.detail]
            },
            "empty": page.events.isEmpty,
            "actor": parameters["actor"] ?? "", "from": parameters["from"] ?? "", "to": parameters["to"] ?? "",
            "actions": AuditAction.allCases.map { action -> [String: Any] in ["value": action.rawValue, "selected": action == query.action] },
        ]
        if query.before != nil { values["first"] = "/audit" }
        if let next { values["next"] = next }
        return views.page("audit", title: "Audit log", context: context, section: .audit, values: values)
    }
}
