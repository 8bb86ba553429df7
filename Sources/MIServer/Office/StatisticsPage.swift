import Foundation
import Hummingbird
import MIKit

/// `/templates/{id}/stats`: a template's statistics over the stored submissions, with the
/// API's filters in a GET form (`form#stats-filters`) and the figures drawn as SVG on the
/// server — the forms per day as a line, each choice question's options as bars, each number's
/// histogram — every chart beside a table of its numbers. No script; prints as shown.
struct StatisticsPage {
    let views: OfficeViews
    let statistics: StoredStatistics
    let repository: any SubmissionRepository
    /// `Server.Paths.Template` (`/api/v1/templates/{id}`): the export link goes to the API,
    /// which takes the office's session cookie for a GET.
    let templatePath: String

    func register(on pages: RouteCollection<ServerContext>) {
        pages.get("templates/{id}/stats", use: show)
    }

    /// The page of template `id`.
    static func path(_ id: String) -> String { "/templates/\(TemplatesPage.pathSegment(id))/stats" }

    /// The page's own choices beside the API's filters: which day `from`, `to` and the chart
    /// go by (`dates`: `submitted`, the default, or `uploaded`) and `simulated=hide`.
    struct Choices: Sendable {
        var dates: SubmissionQuery.DateBasis = .submitted
        var hideSimulated = false
        /// With `dates` `.uploaded`: the upload-time range.
        var from: Date?
        var until: Date?

        func selects(_ summary: SubmissionSummary) -> Bool {
            if hideSimulated, summary.simulated { return false }
            if dates == .uploaded {
                if let from, summary.receivedAt < from { return false }
                if let until, summary.receivedAt >= until { return false }
            }
            return true
        }
    }

    /// The choices of a request; a bad value is 400 naming its parameter. With `dates=uploaded`
    /// the `from`/`to` days are taken out of the query the statistics filter by submission time.
    static func choices(_ request: Request) throws -> (Choices, query: String?) {
        let parameters = SubmissionListController.parameters(of: request)
        var choices = Choices()
        if let text = parameters["dates"] {
            guard let basis = SubmissionQuery.DateBasis(rawValue: text) else {
                throw HTTPError(.badRequest, message: "parameter `dates` is \"\(SafeName.printable(text))\" — give uploaded or submitted")
            }
            choices.dates = basis
        }
        if let text = parameters["simulated"] {
            guard ["hide", "show"].contains(text) else {
                throw HTTPError(.badRequest, message: "parameter `simulated` is \"\(SafeName.printable(text))\" — give hide or show")
            }
            choices.hideSimulated = text == "hide"
        }
        guard choices.dates == .uploaded else { return (choices, request.uri.query) }
        do {
            (choices.from, choices.until) = try StatisticsFilters.dates(from: parameters["from"], to: parameters["to"])
        } catch {
            switch error {
            case .invalid(let parameter, let value, let expected):
                throw HTTPError(.badRequest, message: "parameter `\(parameter)` is \"\(SafeName.printable(value))\" — give \(expected)")
            }
        }
        let rest = FormQuery.parameters(request.uri.query).filter { $0.name != "from" && $0.name != "to" }
        return (choices, rest.map { "\($0.name)=\(FormQuery.encoded($0.value))" }.joined(separator: "&"))
    }

    @Sendable func show(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let (choices, query) = try Self.choices(request)
        let filters = try StoredStatistics.filters(query, session: session)
        let id = try context.parameters.decoded("id")
        let language = SubmissionListController.parameters(of: request)["lang"]
        async let figures = statistics.statistics(of: id, filters: filters, logger: context.logger, selecting: choices.selects,
                                                  language: language)
        async let technicians = session.role == .foreman ? repository.users() : [session.sub]
        let catalog = statistics.catalog
        async let versions = Blocking.run { catalog.versions(id: id).map(\.version) }
        let ((result, template, counted, left), users, known) = try await (figures, technicians, versions)
        let parameters = SubmissionListController.parameters(of: request)
        var values = Self.values(result, template: template, dates: choices.dates,
                                 uploadDays: choices.dates == .uploaded ? Self.uploadDays(counted) : nil)
        values["dateChoices"] = SubmissionListController.options(
            [("submitted", "submitted"), ("uploaded", "uploaded")], selected: choices.dates.rawValue)
        values["dateWord"] = choices.dates == .uploaded ? "Uploaded" : "Submitted"
        values["hideSimulated"] = choices.hideSimulated
        let hidden = left.filter(\.simulated).count
        if choices.hideSimulated {
            values["simulatedHidden"] = hidden == 0 ? "no simulated form to hide" : "\(Self.count(hidden, "simulated form")) hidden"
        }
        values["path"] = Self.path(id)
        let others = FormQuery.parameters(request.uri.query).filter { $0.name != "lang" }
            .map { "\($0.name)=\(FormQuery.encoded($0.value))&" }.joined()
        let switchValues = LanguageSwitch.values(template, shown: language.flatMap { template.language(matching: $0) }, query: others)
        if !switchValues.isEmpty { values["languages"] = switchValues; values["hasLanguages"] = true }
        if let chosen = language.flatMap({ template.language(matching: $0) }) { values["language"] = chosen }
        // The export's from/to are submission days: a range of upload days is not passed on as one.
        let exported = choices.dates == .uploaded ? parameters.filter { $0.key != "from" && $0.key != "to" } : parameters
        values["export"] = Self.exportLink(templatePath: templatePath, id: id, parameters: exported)
        values["exportGeoJSON"] = Self.exportLink(templatePath: templatePath, id: id, parameters: exported, format: .geojson)
        values["exportAllVersions"] = Self.exportLink(templatePath: templatePath, id: id, parameters: exported, allVersions: true)
        values["from"] = parameters["from"] ?? ""
        values["to"] = parameters["to"] ?? ""
        values["allUsers"] = session.role == .foreman
        values["users"] = SubmissionListController.options(users.map { ($0, $0) }, selected: result.filters.user)
        values["versions"] = SubmissionListController.options(known.map { ("\($0)", "version \($0)") },
                                                              selected: result.filters.version.map { "\($0)" })
        values["reviewStates"] = SubmissionListController.options(ReviewState.allCases.map { ($0.rawValue, $0.label) },
                                                                  selected: result.filters.reviewState?.rawValue)
        values["groupChoices"] = SubmissionListController.options(
            result.questions.filter { $0.options != nil }.map { ($0.id, "\(SVGChart.shortened($0.text)) (\($0.id))") },
            selected: result.filters.groupBy)
        let title = result.templateTitle.isEmpty ? result.templateID : result.templateTitle
        return views.page("stats", title: "Statistics · \(title)", context: context, section: .templates, values: values)
    }

    /// The API's zip export of template `id` with the page's filters (`groupBy` is not one).
    /// With `allVersions`, every stored version of each form (`Version`, `Supersedes`).
    static func exportLink(templatePath: String, id: String, parameters: [String: String], format: ExportFormat = .zip,
                           allVersions: Bool = false) -> String {
        var query = ["from", "to", "user", "version", "reviewState"].compactMap { name in
            parameters[name].map { "\(name)=\(FormQuery.encoded($0))" }
        }
        if format != .zip { query.append("format=\(format.rawValue)") }
        if allVersions { query.append("allVersions=true") }
        let path = templatePath.replacingOccurrences(of: "{id}", with: TemplatesPage.pathSegment(id)) + "/export.zip"
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    // MARK: - Values for the view

    /// The forms per upload day (`YYYY-MM-DD`, UTC), oldest first.
    static func uploadDays(_ summaries: [SubmissionSummary]) -> [DayCount] {
        Dictionary(grouping: summaries) { UTCDay.string($0.receivedAt) }
            .map { DayCount(day: $0.key, count: $0.value.count) }.sorted { $0.day < $1.day }
    }

    static func values(_ statistics: TemplateStatistics, template: Template, dates: SubmissionQuery.DateBasis = .submitted,
                       uploadDays: [DayCount]? = nil) -> [String: Any] {
        let types = Dictionary(template.questions.map { ($0.id, $0.typeDescription) }, uniquingKeysWith: { first, _ in first })
        func question(_ figures: QuestionStatistics, forms: Int) -> [String: Any] {
            Self.question(figures, forms: forms, type: types[figures.id] ?? figures.type)
        }
        var values: [String: Any] = [
            "id": statistics.templateID, "title": statistics.templateTitle.isEmpty ? statistics.templateID : statistics.templateTitle,
            "version": statistics.templateVersion,
            "forms": count(statistics.forms, "form"),
            "simulated": statistics.simulated, "hasSimulated": statistics.simulated > 0,
            "empty": statistics.forms == 0,
            "questions": statistics.questions.map { question($0, forms: statistics.forms) },
        ]
        if let days = dayValues(uploadDays ?? statistics.days, dates: dates) { values["days"] = days }
        if let repeats = statistics.repeats, statistics.forms > 0 { values["repeats"] = repeatValues(repeats) }
        if let scores = statistics.scores, statistics.forms > 0 {
            values["scores"] = ["list": scores.map(scoreValues), "none": scores.isEmpty] as [String: Any]
        }
        if let groups = statistics.groups, let groupBy = statistics.filters.groupBy {
            let text = statistics.questions.first { $0.id == groupBy }?.text ?? groupBy
            values["grouping"] = [
                "question": text, "id": groupBy,
                "groups": groups.map { group in
                    [
                        "label": group.label ?? "Not answered", "unanswered": group.label == nil,
                        "forms": count(group.forms, "form"),
                        "questions": group.questions.filter { $0.id != groupBy }.map { question($0, forms: group.forms) },
                        "repeats": group.forms > 0 ? group.repeats.map { repeatValues($0) as Any } ?? false : false,
                    ] as [String: Any]
                },
            ] as [String: Any]
        }
        return values
    }

    /// The line of forms per day from the first day with forms to the last (days between
    /// without any at zero), and the figures beside it; nil without forms.
    static func dayValues(_ days: [DayCount], dates: SubmissionQuery.DateBasis = .submitted) -> [String: Any]? {
        guard let (points, first, last) = dayLine(days, title: { "\($0): \(count($1, "form")) \(dates.rawValue)" }) else { return nil }
        let by = dates == .uploaded ? "by the day they were uploaded" : "by the day they were submitted"
        let busiest = days.max { $0.count < $1.count || ($0.count == $1.count && $0.day > $1.day) }
        return [
            "chart": SVGChart.line(points, firstTick: first.day, lastTick: last.day, svgClass: "chart-days",
                                   label: "Forms per day \(by), from \(first.day) to \(last.day)"),
            "by": by,
            "first": first.day, "last": last.day, "span": count(points.count, "day"),
            "withForms": count(days.count, "day"), "busiest": busiest?.day ?? "", "busiestCount": count(busiest?.count ?? 0, "form"),
        ]
    }

    /// One point per day from the first of `days` to the last (days between at zero, untitled),
    /// each titled `title(day, count)`; nil without days.
    private static func dayLine(_ days: [DayCount], title: (String, Int) -> String)
        -> (points: [SVGChart.Point], first: DayCount, last: DayCount)? {
        let numbered = days.compactMap { day in dayNumber(day.day).map { (number: $0, day: day) } }
        guard let first = numbered.first, let last = numbered.last else { return nil }
        let byNumber = Dictionary(numbered.map { ($0.number, $0.day.count) }, uniquingKeysWith: +)
        let points = (first.number...last.number).map { number -> SVGChart.Point in
            let count = byNumber[number] ?? 0
            let day = UTCDay.string(Date(timeIntervalSince1970: Double(number) * 86_400))
            return SVGChart.Point(value: count, title: count == 0 ? nil : title(day, count))
        }
        return (points, first.day, last.day)
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` day.
    private static func dayNumber(_ day: String) -> Int? {
        (try? UTCDay.parse(day, parameter: "day", endOfDay: false)).map { Int($0.timeIntervalSince1970 / 86_400) }
    }

    /// Each repeat's instances per form, as the rows of a table.
    static func repeatValues(_ repeats: [RepeatStatistics]) -> [String: Any] {
        ["rows": repeats.map { figures in
            [
                "id": figures.id, "text": figures.text, "parent": figures.parent.map { $0 as Any } ?? false,
                "instances": figures.instances, "forms": figures.forms,
                "minimum": figures.minimum, "median": number(figures.median), "maximum": figures.maximum,
            ] as [String: Any]
        }]
    }

    /// One question's figures: the counts, then by type its chart and table. A question in a
    /// repeat is counted per instance: its percentages are of the instances.
    static func question(_ question: QuestionStatistics, forms: Int, type: String) -> [String: Any] {
        let asked = question.instances ?? forms
        var values: [String: Any] = [
            "id": question.id, "text": question.text, "type": type,
            "answered": question.answered, "commentOnly": question.commentOnly, "unanswered": question.unanswered,
            "notRelevant": (question.notRelevant ?? 0) > 0 ? question.notRelevant as Any : false,
            "repeat": question.repeat.map { ["id": $0, "instances": count(question.instances ?? 0, "instance")] as Any } ?? false,
            "answeredPercent": percent(question.answered, of: asked),
            "media": question.media.map { ["text": count($0.count, $0.kind)] }, "hasMedia": !question.media.isEmpty,
        ]
        if let options = question.options {
            values["options"] = optionValues(options, multiple: question.multipleAnswers ?? false, answered: question.answered,
                                             question: question.id)
        }
        if let numbers = question.numbers { values["numbers"] = numberValues(numbers, name: question.text) }
        if let frequent = question.values, !frequent.isEmpty {
            values["values"] = valueValues(frequent, distinct: question.distinctValues ?? frequent.count, name: question.text)
        }
        if let cells = question.cells {
            values["cells"] = cells.map { cell -> [String: Any] in
                let name = "\(cell.rowLabel) · \(cell.columnLabel)"
                var cellValues: [String: Any] = [
                    "row": cell.row, "column": cell.column, "name": name, "answered": count(cell.answered, "form"),
                ]
                if let numbers = cell.numbers { cellValues["numbers"] = numberValues(numbers, name: name) }
                if let frequent = cell.values, !frequent.isEmpty {
                    cellValues["values"] = valueValues(frequent, distinct: cell.distinctValues ?? frequent.count, name: name)
                }
                return cellValues
            }
        }
        if let dates = question.dates, let answerDays = answerDayValues(dates, name: question.text) { values["dates"] = answerDays }
        if let hours = question.hours, hours.contains(where: { $0.count > 0 }) { values["hours"] = hourValues(hours, name: question.text) }
        if let locations = question.locations, locations.count > 0 {
            values["locations"] = locationValues(locations, name: question.text)
        }
        // A question answered by its files (a photo) has its counts and files above, not "no value".
        let answeredByFiles = question.answered > 0 && !question.media.isEmpty
        values["nothingToChart"] = question.options == nil && question.cells == nil && values["numbers"] == nil && values["values"] == nil
            && values["dates"] == nil && values["hours"] == nil && values["locations"] == nil && !answeredByFiles
        return values
    }

    /// The answers of a date question per day they name: a line from the first day to the last
    /// (days between at zero), beside the table of days with answers; nil without any.
    static func answerDayValues(_ days: [DayCount], name: String) -> [String: Any]? {
        guard let (points, first, last) = dayLine(days, title: { "\($0): \(count($1, "form"))" }) else { return nil }
        return [
            "chart": SVGChart.line(points, firstTick: first.day, lastTick: last.day, svgClass: "chart-answer-days",
                                   label: "Answers to \(name) per day, from \(first.day) to \(last.day)"),
            "first": first.day, "last": last.day, "withAnswers": count(days.count, "day"),
            "rows": days.map { ["day": $0.day, "count": $0.count] },
        ]
    }

    /// The answers of a time question per hour of the day, 00 to 23, as columns beside the table
    /// of the hours with answers.
    static func hourValues(_ hours: [HourCount], name: String) -> [String: Any] {
        func label(_ hour: Int) -> String { hour < 10 ? "0\(hour):00" : "\(hour):00" }
        let columns = hours.map { hour in
            SVGChart.Column(value: hour.count, title: "\(label(hour.hour))–\(label(hour.hour).prefix(2)):59: \(count(hour.count, "form"))",
                            tick: hour.hour % 3 == 0 ? label(hour.hour) : "", text: hour.count == 0 ? "" : "\(hour.count)")
        }
        return [
            "chart": SVGChart.columns(columns, kind: "hour", svgClass: "chart-hours", label: "Answers to \(name) per hour of the day"),
            "rows": hours.filter { $0.count > 0 }.map { ["hour": "\(label($0.hour))–\(label($0.hour).prefix(2)):59", "count": $0.count] },
        ]
    }

    /// A location question's points plotted (`SVGChart.points`) beside their count and box.
    static func locationValues(_ locations: LocationStatistics, name: String) -> [String: Any] {
        var values: [String: Any] = [
            "chart": SVGChart.points(locations, svgClass: "chart-locations", label: "Where the answers to \(name) lie"),
            "count": locations.count,
        ]
        if let box = locations.boundingBox {
            let plot = LocationPlot(locations)
            values["box"] = [
                "north": formatNumber(box.north), "south": formatNumber(box.south),
                "west": formatNumber(box.west), "east": formatNumber(box.east),
                "extent": "\(distance(plot.widthMetres)) × \(distance(plot.heightMetres))",
            ]
        }
        if locations.pointsOmitted > 0 {
            values["omitted"] = "The plot shows the first \(locations.points.count) of \(locations.count) points; the box holds them all."
        }
        return values
    }

    /// `850 m`, `12.3 km`.
    static func distance(_ metres: Double) -> String {
        metres < 1_000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1_000)
    }

    static func optionValues(_ options: [OptionCount], multiple: Bool, answered: Int, question: String) -> [String: Any] {
        let bars = options.map { option in
            SVGChart.Bar(label: option.label, title: "\(option.label): \(count(option.count, "form")), \(percentText(option.percent)) of \(answered) answered",
                         value: option.count, text: "\(option.count) · \(percentText(option.percent))")
        }
        return [
            "chart": SVGChart.bars(bars, kind: "option", svgClass: "chart-options", label: "Answers to \(question) by option"),
            "rows": options.map { ["label": $0.label, "count": $0.count, "percent": percentText($0.percent)] },
            "multiple": multiple, "answered": answered,
        ]
    }

    /// One score's figures: its words as bars (count and percent of the forms scored), its
    /// numbers as a histogram, each beside its table.
    static func scoreValues(_ score: ScoreStatistics) -> [String: Any] {
        var values: [String: Any] = ["key": score.key, "forms": count(score.forms, "form")]
        if let categories = score.categories {
            let bars = categories.map { category in
                SVGChart.Bar(label: category.label,
                             title: "\(category.label): \(count(category.count, "form")), \(percentText(category.percent)) of \(score.forms) scored",
                             value: category.count, text: "\(category.count) · \(percentText(category.percent))")
            }
            values["categories"] = [
                "chart": SVGChart.bars(bars, kind: "category", svgClass: "chart-categories", label: "\(score.key) by category"),
                "rows": categories.map { ["label": $0.label, "count": $0.count, "percent": percentText($0.percent)] },
            ] as [String: Any]
        }
        if let numbers = score.numbers { values["numbers"] = numberValues(numbers, name: score.key) }
        return values
    }

    static func numberValues(_ numbers: NumberSummary, name: String) -> [String: Any] {
        let integer = numbers.integer ?? false
        let bins = numbers.histogram
        let pitch = min(max(560 / Double(max(bins.count, 1)), 28), 80)
        // A tick under every bar when its range fits, else under every other (or third) bar,
        // counted from the last so the highest values are always labelled.
        let every = Int((56 / pitch).rounded(.up))
        let columns = bins.enumerated().map { index, bin in
            let range = binText(bin, integer: integer)
            return SVGChart.Column(value: bin.count, title: "\(range): \(count(bin.count, "value"))",
                                   tick: (bins.count - 1 - index) % every == 0 ? range : "",
                                   text: "\(bin.count)")
        }
        let summary: [(String, String)] = [
            ("Values", "\(numbers.count)"), ("Mean", number(numbers.mean)),
            ("Standard deviation", numbers.standardDeviation.map(number) ?? "—"),
            ("Minimum", number(numbers.minimum)), ("Lower quartile", number(numbers.lowerQuartile)),
            ("Median", number(numbers.median)), ("Upper quartile", number(numbers.upperQuartile)),
            ("Maximum", number(numbers.maximum)),
        ]
        return [
            "chart": SVGChart.columns(columns, kind: "bin", svgClass: "chart-histogram", label: "Histogram of \(name)",
                                      pitch: pitch, width: pitch - 3, minimumWidth: 560),
            "summary": summary.map { ["name": $0.0, "value": $0.1] },
            "bins": bins.map { ["range": binText($0, integer: integer), "count": $0.count] },
        ]
    }

    static func valueValues(_ frequent: [ValueCount], distinct: Int, name: String) -> [String: Any] {
        let bars = frequent.map { SVGChart.Bar(label: $0.value, title: "\($0.value): \(count($0.count, "form"))", value: $0.count, text: "\($0.count)") }
        var values: [String: Any] = [
            "chart": SVGChart.bars(bars, kind: "value", svgClass: "chart-values", label: "Most frequent values of \(name)"),
            "rows": frequent.map { ["value": $0.value, "count": $0.count] },
            "distinct": count(distinct, "distinct value"),
        ]
        if distinct > frequent.count { values["more"] = "the \(frequent.count) most frequent of \(distinct) distinct values" }
        return values
    }

    /// What a bin holds: `lower ≤ x < upper` (the last bin also `upper`) spelled `lower–upper`;
    /// whole numbers `lower` … `upper − 1` spelled `10–19`, or `7` for a bin one wide.
    static func binText(_ bin: HistogramBin, integer: Bool) -> String {
        guard bin.lower != bin.upper else { return number(bin.lower) }
        guard integer else { return "\(number(bin.lower))–\(number(bin.upper))" }
        let highest = bin.upper - 1
        return highest <= bin.lower ? number(bin.lower) : "\(number(bin.lower))–\(number(highest))"
    }

    /// At most three decimals, without trailing zeros.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func percentText(_ percent: Double) -> String { String(format: "%.1f %%", percent) }

    static func percent(_ part: Int, of whole: Int) -> String {
        percentText(whole == 0 ? 0 : Double(part) / Double(whole) * 100)
    }

    /// `1 form`, `12 forms`.
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
