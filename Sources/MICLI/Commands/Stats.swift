import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Statistics of a template's completed forms, with bar charts (a foreman sees everyone's).",
            discussion: """
                Counts the completed (submitted) forms in this computer's store: a technician's own, a foreman's \
                of every technician. Per question: answered, comment-only and unanswered forms; options with \
                their count and percent of the forms that answered; numbers with mean, standard deviation, \
                quartiles and a histogram; the most frequent short answers; table cells; locations with their \
                count, bounding box and a plot of the points (the office draws it as SVG); media by kind; then \
                forms per day; for a scored template (IPAQ, MMSE) each score recomputed from the answers, \
                categories with their percent and numbers summarized. A question inside a repeat is counted once per \
                instance (a number's summary holds every instance's value) and each repeat says its instances per form \
                (count, min, median, max); with form logic, a question that was not relevant is counted as such, not as \
                unanswered. Dates are UTC days of submission (--to is inclusive). On a terminal the bars are \
                block characters sized to its width; piped, they are # characters and nothing else is styled. \
                --json prints the same figures as the server's /api/v1/templates/{id}/stats.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template id (`mi templates` lists them).", valueName: "template"), completion: Completions.templates)
        var template: String

        @OptionGroup var selection: FormSelectionOptions

        @Option(help: ArgumentHelp("Only forms of this template version (laid out by that version's questions).", valueName: "n"))
        var version: Int?

        @Option(name: .customLong("group-by"),
                help: ArgumentHelp("The id of a multiple-choice or true/false question: the figures again per option.", valueName: "question"))
        var groupBy: String?

        func validate() throws {
            if let version, version < 1 { throw ValidationError("--version is a template version: a whole number from 1") }
        }

        func run() throws {
            let filters = try selection.filters(version: version, groupBy: groupBy)
            let context = try Context.anyone(global)
            let (statistics, unreadable) = try context.runListing(reminders: false) { workflow, listing in
                try workflow.statistics(of: template, filters: filters, listing: listing)
            }
            context.report(unreadable)
            if global.json {
                try Terminal.json(statistics)
                return
            }
            let text = StatisticsText(statistics: statistics, width: Terminal.width, style: BarChart.Style.current)
            print(text.lines().joined(separator: "\n"))
        }
    }
}

/// `mi stats` as text: a header, a block per question with its charts, then forms per day;
/// with a group-by, the blocks again per group.
struct StatisticsText {
    var statistics: TemplateStatistics
    var width: Int
    var style: BarChart.Style

    func lines() -> [String] {
        var lines = header()
        guard statistics.forms > 0 else {
            lines.append("")
            lines.append("No completed forms match: forms count once they are submitted (`mi submit`).")
            return lines
        }
        if let repeats = statistics.repeats {
            lines.append("")
            lines += repeatLines(repeats)
        }
        for (index, question) in statistics.questions.enumerated() {
            lines.append("")
            lines += block(question, number: index + 1)
        }
        if let scores = statistics.scores {
            lines.append("")
            lines += scoreLines(scores)
        }
        for group in statistics.groups ?? [] {
            lines.append("")
            let name = group.label.map { "\"\(DisplayText.escaped($0))\"" } ?? "no answer"
            lines.append(rule("\(statistics.filters.groupBy ?? ""): \(name) — \(Format.plural(group.forms, "form"))"))
            guard group.forms > 0 else { continue }
            if let repeats = group.repeats {
                lines.append("")
                lines += repeatLines(repeats)
            }
            for (index, question) in group.questions.enumerated() where question.id != statistics.filters.groupBy {
                lines.append("")
                lines += block(question, number: index + 1)
            }
        }
        lines.append("")
        lines.append("Forms per day (UTC)")
        var days = BarChart()
        let busiest = statistics.days.map(\.count).max() ?? 1
        for day in statistics.days { days.add(day.day, fraction: Double(day.count) / Double(busiest), String(day.count)) }
        lines += days.lines(width: width, style: style)
        return lines
    }

    private func header() -> [String] {
        var lines = ["\(DisplayText.escaped(statistics.templateTitle)) (\(DisplayText.escaped(statistics.templateID)) v\(statistics.templateVersion))"]
        var counted = "\(Format.plural(statistics.forms, "completed form")) counted"
        if statistics.simulated > 0 { counted += ", \(statistics.simulated) of them simulated" }
        lines.append(counted)
        let filters = statistics.filters
        var parts: [String] = []
        if let from = filters.from { parts.append("from \(UTCDay.string(from))") }
        if let to = filters.to { parts.append("to \(UTCDay.string(to.addingTimeInterval(-1)))") }
        if let user = filters.user { parts.append("technician \(DisplayText.escaped(user))") }
        if let version = filters.version { parts.append("version \(version)") }
        if let groupBy = filters.groupBy { parts.append("grouped by \(DisplayText.escaped(groupBy))") }
        lines.append("Filters: " + (parts.isEmpty ? "none" : parts.joined(separator: ", ")))
        return lines
    }

    private func rule(_ title: String) -> String {
        let text = "── \(title) "
        return text + String(repeating: "─", count: max(3, min(width, 80) - text.count))
    }

    private func block(_ question: QuestionStatistics, number: Int) -> [String] {
        var lines = TextWrap.lines("\(number). \(DisplayText.escaped(question.text)) [\(DisplayText.escaped(question.id))]", width: width)
        if let repeated = question.repeat {
            lines.append("   in repeat \(DisplayText.escaped(repeated)): per instance, \(Format.plural(question.instances ?? 0, "instance"))")
        }
        var counts = "   answered \(question.answered) · comment only \(question.commentOnly) · unanswered \(question.unanswered)"
        if let notRelevant = question.notRelevant, notRelevant > 0 { counts += " · not relevant \(notRelevant)" }
        lines.append(counts)
        if let options = question.options {
            if question.multipleAnswers == true {
                lines.append("   several answers per form — percentages may sum past 100 %")
            }
            var chart = BarChart()
            for option in options {
                chart.add(DisplayText.escaped(option.label), fraction: option.percent / 100, String(option.count), Self.percent(option.percent))
            }
            lines += chart.lines(width: width, style: style)
        }
        if let numbers = question.numbers {
            lines += numberLines(numbers)
        }
        if let dates = question.dates, let first = dates.first, let last = dates.last {
            lines.append("   per day, \(first.day) to \(last.day) (\(Format.plural(dates.count, "day")) with answers):")
            lines += countLines(dates.map { ($0.day, $0.count) })
        }
        if let hours = question.hours, let first = hours.firstIndex(where: { $0.count > 0 }),
           let last = hours.lastIndex(where: { $0.count > 0 }) {
            lines.append("   per hour of the day:")
            lines += countLines(hours[first...last].map { (Self.hourLabel($0.hour), $0.count) })
        }
        if let values = question.values {
            lines += valueLines(values, distinct: question.distinctValues ?? values.count,
                                what: question.numbers != nil ? "not numbers" : question.dates != nil ? "not dates" : question.hours != nil ? "not times" : "most frequent")
        }
        if let locations = question.locations, locations.count > 0 {
            lines += locationLines(locations)
        }
        for cell in question.cells ?? [] {
            let name = "\(DisplayText.escaped(cell.rowLabel)) / \(DisplayText.escaped(cell.columnLabel))"
            let figures: String
            if let numbers = cell.numbers {
                figures = Self.summary(numbers)
            } else if let values = cell.values {
                let more = (cell.distinctValues ?? 0) > values.count ? " (\(cell.distinctValues ?? 0) distinct)" : ""
                figures = values.map { "\(DisplayText.escaped($0.value)) \($0.count)" }.joined(separator: " · ") + more
            } else {
                figures = "no values"
            }
            // A cell whose figures do not fit beside its name gets them on lines of their own.
            if 3 + name.count + 2 + figures.count <= width {
                lines.append("   \(name): \(figures)")
            } else {
                lines.append("   \(name):")
                lines += TextWrap.lines(figures, width: width - 6).map { "      " + $0 }
            }
        }
        if !question.media.isEmpty {
            lines.append("   media: " + question.media.map { "\($0.kind) \($0.count)" }.joined(separator: " · "))
        }
        return lines.flatMap { $0.count > width ? TextWrap.fitting($0, width: width).components(separatedBy: "\n") : [$0] }
    }

    /// Each repeat's instances per form: `pumps (Pump): 7 instances in 3 forms · per form min 1 · median 2 · max 4`.
    private func repeatLines(_ repeats: [RepeatStatistics]) -> [String] {
        var lines = [rule("Repeats")]
        for figures in repeats {
            var name = DisplayText.escaped(figures.id)
            if figures.text != figures.id { name += " (\(DisplayText.escaped(figures.text)))" }
            if let parent = figures.parent { name += " in \(DisplayText.escaped(parent))" }
            lines += TextWrap.lines("\(name): \(Format.plural(figures.instances, "instance")) in \(Format.plural(figures.forms, "form"))"
                + " · per form min \(figures.minimum) · median \(Self.number(figures.median)) · max \(figures.maximum)", width: width)
        }
        return lines
    }

    /// A location question: the count, the bounding box and its size, then the points plotted
    /// north up (`LocationPlot`), `•`/`●` on a terminal, `*`/`#` piped.
    private func locationLines(_ locations: LocationStatistics) -> [String] {
        var lines = ["   points \(locations.count)"]
        guard let box = locations.boundingBox else { return lines }
        let plot = LocationPlot(locations)
        lines[0] += " · north \(formatNumber(box.north)) · south \(formatNumber(box.south)) · west \(formatNumber(box.west))"
            + " · east \(formatNumber(box.east)) · \(Self.distance(plot.widthMetres)) × \(Self.distance(plot.heightMetres))"
        if locations.pointsOmitted > 0 { lines.append("   the plot shows the first \(locations.points.count) points") }
        let rows = max(4, min(10, (width - 6) / 2))
        for row in plot.characters(rows: rows) {
            let text = style == .blocks ? row : String(row.map { $0 == "•" ? "*" : ($0 == "●" ? "#" : ".") })
            lines.append("   " + text)
        }
        return lines
    }

    /// `850 m`, `12.3 km`.
    static func distance(_ metres: Double) -> String {
        metres < 1_000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1_000)
    }

    /// The scores recomputed from the answers: words as a bar chart with counts and percents,
    /// numbers as a summary and a histogram.
    private func scoreLines(_ scores: [ScoreStatistics]) -> [String] {
        var lines = [rule("Scores")]
        if scores.isEmpty { lines.append("   no scores") }
        for score in scores {
            lines.append("\(DisplayText.escaped(score.key)) — \(Format.plural(score.forms, "form"))")
            if let categories = score.categories {
                var chart = BarChart()
                for category in categories {
                    chart.add(DisplayText.escaped(category.label), fraction: category.percent / 100, String(category.count),
                              Self.percent(category.percent))
                }
                lines += chart.lines(width: width, style: style)
            }
            if let numbers = score.numbers { lines += numberLines(numbers) }
        }
        return lines.flatMap { $0.count > width ? TextWrap.fitting($0, width: width).components(separatedBy: "\n") : [$0] }
    }

    private func numberLines(_ numbers: NumberSummary) -> [String] {
        var lines = ["   " + Self.summary(numbers)]
        var chart = BarChart()
        let tallest = numbers.histogram.map(\.count).max() ?? 1
        let whole = numbers.integer ?? false
        for bin in numbers.histogram {
            chart.add(Self.binLabel(bin, whole: whole), fraction: Double(bin.count) / Double(max(tallest, 1)), String(bin.count))
        }
        lines += chart.lines(width: width, style: style)
        return lines
    }

    /// One bar per labelled count, scaled to the largest.
    private func countLines(_ counts: [(String, Int)]) -> [String] {
        var chart = BarChart()
        let most = max(counts.map(\.1).max() ?? 1, 1)
        for (label, count) in counts { chart.add(label, fraction: Double(count) / Double(most), String(count)) }
        return chart.lines(width: width, style: style)
    }

    /// `14:00–14:59`.
    static func hourLabel(_ hour: Int) -> String {
        let two = hour < 10 ? "0\(hour)" : "\(hour)"
        return "\(two):00–\(two):59"
    }

    private func valueLines(_ values: [ValueCount], distinct: Int, what: String) -> [String] {
        var lines = ["   \(what) (\(values.count) of \(distinct) distinct):"]
        var chart = BarChart()
        let most = values.map(\.count).max() ?? 1
        for value in values { chart.add("\"\(DisplayText.escaped(value.value))\"", fraction: Double(value.count) / Double(most), String(value.count)) }
        lines += chart.lines(width: width, style: style)
        return lines
    }

    /// `n 42 · mean 6.21 · sd 3.02 · min 0.5 · Q1 3.9 · median 6 · Q3 8.4 · max 15.9`.
    static func summary(_ numbers: NumberSummary) -> String {
        var parts = ["n \(numbers.count)", "mean \(number(numbers.mean))"]
        if let deviation = numbers.standardDeviation { parts.append("sd \(number(deviation))") }
        parts += ["min \(number(numbers.minimum))", "Q1 \(number(numbers.lowerQuartile))", "median \(number(numbers.median))",
                  "Q3 \(number(numbers.upperQuartile))", "max \(number(numbers.maximum))"]
        return parts.joined(separator: " · ")
    }

    /// A bin as the numbers it holds: `7` (one whole number), `10–19` (whole numbers, both
    /// included), `2.5–5` (real numbers, the upper edge excluded but for the last bin).
    static func binLabel(_ bin: HistogramBin, whole: Bool) -> String {
        guard whole else { return "\(number(bin.lower))–\(number(bin.upper))" }
        if bin.upper - bin.lower == 1 { return number(bin.lower) }
        return "\(number(bin.lower))–\(number(bin.upper - 1))"
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f %%", value) }

    /// A figure with at most a few decimals: whole numbers as they are, else 4 significant digits
    /// (two decimals at least from 1 up).
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return formatNumber(value) }
        let text = abs(value) >= 1 ? String(format: "%.2f", value) : String(format: "%.3g", value)
        guard text.contains("."), !text.contains("e") else { return text }
        var trimmed = text
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        if trimmed.hasSuffix(".") { trimmed.removeLast() }
        return trimmed
    }
}
