import Foundation
import Logging
import MIKit

/// Statistics over the stored submissions of one template, for `GET …/templates/{id}/stats`
/// and the office's statistics page: the filters read from the request, the layout template
/// chosen, and every form counted by MIKit's `StatisticsBuilder` (the same rules as `mi stats`).
struct StoredStatistics: Sendable {
    let forms: StoredForms
    let catalog: TemplateCatalog

    /// The parameters statistics take (an export takes `from`, `to` and `user` the same way).
    static let parameterNames = ["from", "to", "user", "version", "groupBy", "reviewState"]

    /// The filters of a request's query for `session`: empty parameters count as absent (a
    /// filter form sends its empty fields), the last of a repeated one wins. A bad value is
    /// 400 naming the parameter; a technician asking for another technician's forms is 403,
    /// and a technician's filters are narrowed to their own forms.
    static func filters(_ query: String?, session: SessionClaims) throws -> StatisticsFilters {
        var values: [String: String] = [:]
        for (name, value) in FormQuery.parameters(query) where !value.isEmpty { values[name] = value }
        var filters = StatisticsFilters()
        do {
            (filters.from, filters.to) = try StatisticsFilters.dates(from: values["from"], to: values["to"])
        } catch {
            switch error {
            case .invalid(let parameter, let value, let expected):
                // Worded as the listing's parameters are (`SubmissionQueryError`).
                throw StatisticsRefusal(.badParameter, "parameter `\(parameter)` is \"\(SafeName.printable(value))\" — give \(expected)")
            }
        }
        if let user = values["user"] {
            if let problem = SafeName.problem(user) {
                throw StatisticsRefusal(.badParameter, "parameter `user` is \"\(SafeName.printable(user))\", which is no user name: \(problem)")
            }
            filters.user = user
        }
        if let text = values["version"] {
            guard let version = Int(text), version > 0 else {
                throw StatisticsRefusal(.badParameter, "parameter `version` is \"\(SafeName.printable(text))\" — give a template version, a whole number from 1")
            }
            filters.version = version
        }
        filters.groupBy = values["groupBy"]
        if let text = values["reviewState"] {
            guard let state = ReviewState(rawValue: text) else {
                throw StatisticsRefusal(.badParameter, "parameter `reviewState` is \"\(SafeName.printable(text))\" — give \(ReviewState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filters.reviewState = state
        }
        do {
            return try filters.scoped(to: Actor(name: session.sub, role: session.role))
        } catch {
            throw StatisticsRefusal(.forbidden, error.errorDescription ?? error.code)
        }
    }

    /// The statistics of template `id`'s stored submissions that `filters` select, laid out as
    /// `layout(of:version:submissions:)` says (404 when there is no layout); 400 naming
    /// `groupBy` when it is not a multiple-choice or true/false question of the layout.
    /// Returns the layout template with them.
    ///
    /// `selecting` narrows the submissions further by their summaries (the office's upload-day
    /// range, its switch that hides simulated forms); those it leaves out come back as `left`.
    /// `language` (one of the template's, else its default) gives the questions' and options'
    /// texts; the figures, which count names, are the same in every language.
    func statistics(of id: String, filters: StatisticsFilters, logger: Logger,
                    selecting: @Sendable (SubmissionSummary) -> Bool = { _ in true }, language: String? = nil)
        async throws -> (statistics: TemplateStatistics, template: Template, counted: [SubmissionSummary], left: [SubmissionSummary]) {
        let listed = try await forms.list(id, filters: filters)
        let submissions = listed.filter(selecting)
        let left = listed.filter { !selecting($0) }
        let template = try await layout(of: id, version: filters.version, submissions: submissions)
        var builder: StatisticsBuilder
        do {
            builder = try StatisticsBuilder(template: template.localized(to: language.flatMap { template.language(matching: $0) }),
                                            filters: filters)
        } catch {
            throw StatisticsRefusal(.badParameter, "parameter `groupBy`: " + (error.errorDescription ?? error.code))
        }
        var unreadable: [String] = []
        try await forms.read(submissions) { batch in
            for read in batch {
                switch read.form {
                case .success(let form): builder.add(form)
                case .failure: unreadable.append(read.submission.id.description)
                }
            }
        }
        if !unreadable.isEmpty {
            // Damaged since the upload (it was checked then): the administrator restores it.
            logger.error("statistics of \(id) left out \(unreadable.count) submission(s) whose form.json cannot be read — restore them from a backup", metadata: [
                "submissions": .array(unreadable.prefix(20).map { .string($0) }),
            ])
        }
        return (builder.result(), template, submissions, left)
    }

    /// The template that lays out template `id`'s `submissions` (selected by `filters`, in
    /// submission order): the newest version the catalog has, or `version` when filtered on; a
    /// version (or a template) the catalog no longer has is laid out by the copy kept in the
    /// newest submission. 404 when neither exists. Statistics and exports choose it alike.
    func layout(of id: String, version: Int?, submissions: [SubmissionSummary]) async throws -> Template {
        let catalog = self.catalog
        let versions = try await Blocking.run { catalog.versions(id: id) }
        var template = try await Blocking.run { try Self.layout(versions, version: version, coding: catalog.coding) }
        if template == nil, let newest = submissions.last {
            try await forms.read([newest]) { read in template = try? read.first?.form.get().template }
        }
        if template == nil {
            template = try await Blocking.run { try Self.layout(versions, version: nil, coding: catalog.coding) }
        }
        guard let template else {
            throw StatisticsRefusal(.noTemplate, "the server has no template \"\(SafeName.printable(id))\" and no submission of it — the templates page lists those it has")
        }
        return template
    }

    /// The catalog's `version` of the template (its newest when nil), decoded; nil when absent.
    private static func layout(_ versions: [TemplateCatalog.Entry], version: Int?, coding: TemplateCoding) throws -> Template? {
        guard let entry = version == nil ? versions.first : versions.first(where: { $0.version == version }) else { return nil }
        return try coding.decode(entry.data, source: entry.fileName)
    }
}

/// Why statistics (or an export, which filters alike) cannot be given, with the sentence the
/// client is shown; `HTTPRefusal` gives it its HTTP status.
struct StatisticsRefusal: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A filter parameter's value is not one the server can use.
        case badParameter
        /// A technician asked for another technician's forms.
        case forbidden
        /// Neither the catalog nor any submission has the template.
        case noTemplate
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
