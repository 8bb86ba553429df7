import Foundation
import Hummingbird
import MIKit

/// `/` (the dashboard: submissions per template and per day over the last 30 days as SVG bars,
/// the newest submissions, the templates changed recently) and `/submissions` (the filter form
/// and one page of the table, through the same `SubmissionQuery` as `GET /api/v1/submissions`).
/// A technician sees only their own forms on both.
struct SubmissionListController {
    let views: OfficeViews
    let repository: any SubmissionRepository
    let templates: TemplateCatalog
    let now: @Sendable () -> Date

    /// Days the dashboard's charts cover, today included.
    static let dashboardDays = 30
    static let newestCount = 10
    static let recentTemplates = 5

    func register(on pages: RouteCollection<ServerContext>) {
        pages.get("/", use: dashboard)
        pages.get("submissions", use: list)
    }

    // MARK: - /submissions

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let query = try SubmissionQuery.visible(to: session, query: request.uri.query)
        async let page = repository.submissions(query)
        var whole = query
        whole.before = nil
        async let count = repository.count(whole)
        async let users = repository.users()
        // The catalog re-reads its folder when it changed: file work, off the async threads.
        let catalog = templates
        async let listed = Blocking.run { catalog.templates().map { TemplateChoice(id: $0.id, title: $0.title) } }
        let (shown, total, technicians, templateChoices) = try await (page, count, users, listed)
        // The first row's position: the rows before it, counted with the same filters.
        var first = 1
        if let previous = shown.previousCursor.flatMap(SubmissionQuery.Cursor.init(encoded:)) {
            var before = query
            (before.cursor, before.before) = (nil, previous)
            first = try await repository.count(before) + 1
        }
        let parameters = Self.parameters(of: request)
        var values: [String: Any] = [
            "rows": shown.submissions.map(Self.row),
            "count": Self.position(first: first, shown: shown.submissions.count, total: total),
            "empty": shown.submissions.isEmpty,
            "headers": Self.sortHeaders(query, parameters: parameters),
            "templates": Self.options(templateChoices.map { ($0.id, "\($0.title) (\($0.id))") }, selected: query.template),
            "users": Self.options((session.role == .foreman ? technicians : [session.sub]).map { ($0, $0) }, selected: query.user),
            "allUsers": session.role == .foreman,
            "from": parameters["from"] ?? "", "to": parameters["to"] ?? "", "q": parameters["q"] ?? "",
            "dateChoices": Self.options([("uploaded", "uploaded"), ("submitted", "submitted")], selected: query.dates.rawValue),
            "dateWord": query.dates == .uploaded ? "Uploaded" : "Submitted",
            "hideSimulated": query.hideSimulated,
            "reviewStates": Self.options(ReviewState.allCases.map { ($0.rawValue, $0.label) }, selected: query.reviewState?.rawValue),
            "hidden": ["sort", "order", "limit"].compactMap { name in parameters[name].map { ["name": name, "value": $0] } },
        ]
        if let next = shown.nextCursor, first + shown.submissions.count - 1 < total {
            values["next"] = Self.link(parameters, setting: ["cursor": next, "before": nil])
        }
        if let previous = shown.previousCursor {
            values["previous"] = Self.link(parameters, setting: ["before": previous, "cursor": nil])
        }
        if first > 1 { values["first"] = Self.link(parameters, setting: ["cursor": nil, "before": nil]) }
        return views.page("submissions", title: "Submissions", context: context, section: .submissions, values: values)
    }

    struct TemplateChoice: Sendable {
        var id: String
        var title: String
    }

    /// "51–55 of 55 submissions": where the page is in the whole listing.
    static func position(first: Int, shown: Int, total: Int) -> String {
        let noun = total == 1 ? "submission" : "submissions"
        guard shown > 0 else { return "0 of \(total) \(noun)" }
        return "\(first)–\(first + shown - 1) of \(total) \(noun)"
    }

    /// The request's parameters as given, the last of a repeated one, empty ones left out.
    static func parameters(of request: Request) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in FormQuery.parameters(request.uri.query) where !value.isEmpty { values[name] = value }
        return values
    }

    /// `/submissions` with `parameters`, changed by `changes` (nil removes one).
    static func link(_ parameters: [String: String], setting changes: [String: String?]) -> String {
        var merged = parameters
        for (name, value) in changes { merged[name] = value }
        let query = merged.sorted { $0.key < $1.key }.map { name, value in "\(name)=\(FormQuery.encoded(value))" }
        return query.isEmpty ? "/submissions" : "/submissions?" + query.joined(separator: "&")
    }

    /// The table's sortable headers: a header sorts by its column, the current one flips its order.
    static func sortHeaders(_ query: SubmissionQuery, parameters: [String: String]) -> [[String: Any]] {
        let columns: [(SubmissionQuery.Sort, String)] = [
            (.template, "Template"), (.formName, "Form"), (.technician, "Technician"), (.submitted, "Submitted"),
            (.uploaded, "Uploaded"),
        ]
        return columns.map { sort, label in
            let current = query.sort == sort
            let order: SubmissionQuery.Order = current ? (query.order == .ascending ? .descending : .ascending) : sort.defaultOrder
            return [
                "label": label, "sort": sort.rawValue, "current": current,
                "arrow": current ? (query.order == .ascending ? "▲" : "▼") : "",
                "href": link(parameters, setting: ["sort": sort.rawValue, "order": order.rawValue, "cursor": nil, "before": nil]),
            ]
        }
    }

    static func options(_ choices: [(value: String, label: String)], selected: String?) -> [[String: Any]] {
        var list = choices
        // A filter on something no longer listed stays visible and selected.
        if let selected, !choices.contains(where: { $0.value == selected }) { list.insert((selected, selected), at: 0) }
        return list.map { ["value": $0.value, "label": $0.label, "selected": $0.value == selected] }
    }

    static func row(_ summary: SubmissionSummary) -> [String: Any] {
        let version = summary.version ?? 1
        return [
            "id": summary.id.description, "formName": summary.formName, "technician": summary.technicianLabel,
            "template": summary.templateTitle.isEmpty ? "—" : summary.templateTitle,
            "templateVersion": summary.templateVersion,
            "submitted": summary.submittedAt.map(OfficeFormat.dateTime) ?? "—",
            "uploaded": OfficeFormat.dateTime(summary.receivedAt),
            "answered": summary.answered, "questions": summary.questions, "media": summary.media,
            "simulated": summary.simulated,
            "reviewState": (summary.reviewState ?? .received).rawValue, "reviewLabel": (summary.reviewState ?? .received).label,
            "laterVersion": version > 1 ? version : 0, "hasLaterVersion": version > 1,
        ]
    }

    // MARK: - The dashboard

    @Sendable func dashboard(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let user = session.role == .foreman ? nil : session.sub
        let by = try Self.countBy(request)
        let today = Self.startOfDay(now())
        let first = today.addingTimeInterval(-Double(Self.dashboardDays - 1) * 86_400)
        async let counts = repository.counts(since: first, user: user, by: by)
        async let newest = repository.submissions(SubmissionQuery(user: user, limit: Self.newestCount))
        let catalog = templates
        async let changed = Blocking.run { Self.recentlyChanged(catalog) }
        let (figures, latest, recent) = try await (counts, newest, changed)
        let word = by == .uploaded ? "uploaded" : "submitted"
        let values: [String: Any] = [
            "days": Self.dayChart(figures.days, from: first, word: word),
            "templates": Self.templateChart(figures.templates, word: word),
            "byWord": word, "byChoices": Self.options([("uploaded", "uploaded"), ("submitted", "submitted")], selected: by.rawValue),
            "total": figures.days.reduce(0) { $0 + $1.count },
            "period": "\(OfficeFormat.day(first)) – \(OfficeFormat.day(today))",
            "newest": latest.submissions.map(Self.row),
            "noSubmissions": latest.submissions.isEmpty,
            "changed": recent.map(\.values),
            "noTemplates": recent.isEmpty,
            "reviewStates": figures.reviewStates.map { state in
                ["state": state.reviewState.rawValue, "label": state.reviewState.label, "count": state.count,
                 "href": Self.link([:], setting: ["reviewState": state.reviewState.rawValue])] as [String: Any]
            },
        ]
        return views.page("dashboard", title: "Dashboard", context: context, section: .dashboard, values: values)
    }

    /// The dashboard's `by`: which day a submission counts on (`uploaded`, the default, or `submitted`).
    static func countBy(_ request: Request) throws -> SubmissionQuery.DateBasis {
        guard let text = parameters(of: request)["by"] else { return .uploaded }
        guard let basis = SubmissionQuery.DateBasis(rawValue: text) else {
            throw HTTPError(.badRequest, message: "parameter `by` is \"\(SafeName.printable(text))\" — give uploaded or submitted")
        }
        return basis
    }

    static func startOfDay(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }

    /// One bar per day from `first` (empty days included), scaled to the busiest day.
    static func dayChart(_ days: [SubmissionCounts.Day], from first: Date, word: String = "uploaded") -> [String: Any] {
        let byDay = Dictionary(days.map { (Int($0.day.timeIntervalSince1970 / 86_400), $0.count) }, uniquingKeysWith: +)
        let firstDay = Int(first.timeIntervalSince1970 / 86_400)
        let columns = (0..<dashboardDays).map { index in
            let count = byDay[firstDay + index] ?? 0
            let day = OfficeFormat.day(Date(timeIntervalSince1970: Double(firstDay + index) * 86_400))
            return SVGChart.Column(value: count, title: "\(day): \(count) \(word)",
                                   tick: Self.hasTick(index) ? String(day.suffix(5)) : "")
        }
        return SVGChart.columns(columns, kind: "day", svgClass: "bars",
                                label: "Submissions per day \(word), at most \(columns.map(\.value).max() ?? 0)")
    }

    /// Every fifth day has its date under it, and the last; a fifth day too near the last is
    /// left bare so the two dates do not run into each other on a narrow screen.
    static func hasTick(_ index: Int) -> Bool {
        index == dashboardDays - 1 || (index % 5 == 0 && index <= dashboardDays - 5)
    }

    /// One horizontal bar per template, most submissions first, each a link to its statistics.
    static func templateChart(_ templates: [SubmissionCounts.Template], word: String = "uploaded") -> [String: Any] {
        SVGChart.bars(templates.map { template in
            let title = template.templateTitle.isEmpty ? template.templateID : template.templateTitle
            return SVGChart.Bar(label: title, title: "\(title) (\(template.templateID)): \(template.count)", value: template.count,
                                text: "\(template.count)", href: StatisticsPage.path(template.templateID))
        }, kind: "template", svgClass: "bars", label: "Submissions per template \(word) in the last \(dashboardDays) days")
    }

    /// The template files changed last, newest first (the catalog's files' modification times).
    static func recentlyChanged(_ catalog: TemplateCatalog) -> [ChangedTemplate] {
        let dated = catalog.allVersions().map { entry in
            ChangedTemplate(id: entry.id, title: entry.title, version: entry.version, changed: entry.modified)
        }
        return Array(dated.sorted { $0.changed > $1.changed }.prefix(recentTemplates))
    }

    struct ChangedTemplate: Sendable {
        var id: String
        var title: String
        var version: Int
        var changed: Date

        var values: [String: Any] {
            ["id": id, "title": title, "version": version, "changed": OfficeFormat.dateTime(changed),
             "statistics": StatisticsPage.path(id)]
        }
    }
}

extension OfficeFormat {
    /// `2026-11-23`: a UTC day, as the date inputs and the chart write it.
    static func day(_ date: Date) -> String {
        String(dateTime(date).prefix(10))
    }
}
