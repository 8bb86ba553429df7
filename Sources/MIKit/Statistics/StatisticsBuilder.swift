import Foundation

/// Computes a template's statistics from its forms, one form at a time, so the server's stored
/// submissions and the CLI's local forms are counted by the same rules.
///
/// Answers are matched to `template`'s questions by id. A value that no longer fits the
/// question is still counted: an option label the template dropped (or any other value of a
/// choice question) becomes an option after the template's; a numeric question's value that is
/// not a number is listed in `values`; a table cell outside the template's grid gets its own
/// cell. Text is compared after trimming white space, case kept. Media count by kind from the
/// file extension (`MediaKind`), `other` when unknown.
///
/// A template with form logic: a question inside a repeat is counted once per instance of its
/// repeat (`FormInstances`: a numeric's summary holds every instance's value), and a question
/// that is not relevant where it stands (`FormLogic.isRelevant`) and holds nothing is counted as
/// `notRelevant`, not as unanswered. Each repeat's instances per form are summarised
/// (`RepeatStatistics`).
///
/// ```swift
/// var builder = try StatisticsBuilder(template: template, filters: filters)
/// for form in forms { builder.add(form) }
/// let statistics = builder.result()
/// ```
public struct StatisticsBuilder: Sendable {
    /// The layout: questions, their order and their options.
    public let template: Template
    public let filters: StatisticsFilters
    /// Short answers and text cells list this many most frequent values.
    public static let topValues = 10
    /// A location question lists this many points for its plot (all are counted and boxed).
    public static let plottedPoints = 5_000

    private let groupQuestionIndex: Int?
    /// The template's logic, when it has any (relevance, groups, repeats).
    private let logic: FormLogic?
    /// The template's repeats, in the order they open.
    private let repeats: [QuestionGroup]
    /// The indices in `template.questions` of the questions standing directly in each repeat,
    /// by repeat id; those outside every repeat under "".
    private let questionsByRepeat: [String: [Int]]
    private var overall: Tally
    /// With `groupBy`: one tally per label, the template's options first.
    private var groups: [String: Tally] = [:]
    private var ungrouped: Tally
    private var daysSinceEpoch: [Int: Int] = [:]
    private var simulated = 0
    private var scores = ScoreTally()

    /// Refuses a `groupBy` that is not a multiple-choice or true/false question of `template`.
    public init(template: Template, filters: StatisticsFilters = StatisticsFilters()) throws(StatisticsError) {
        self.template = template
        self.filters = filters
        logic = template.hasLogic ? FormLogic(template: template) : nil
        repeats = template.groups.filter(\.isRepeat)
        var byRepeat: [String: [Int]] = [:]
        for (index, question) in template.questions.enumerated() {
            byRepeat[template.repeatChain(of: question).last?.id ?? "", default: []].append(index)
        }
        questionsByRepeat = byRepeat
        overall = Tally(template)
        ungrouped = Tally(template)
        guard let groupBy = filters.groupBy else {
            groupQuestionIndex = nil
            return
        }
        let choices = template.questions.filter(\.isChoice).map(\.id)
        guard let index = template.index(of: groupBy) else {
            throw .unknownGroupBy(question: groupBy, template: template.id, choices: choices)
        }
        let question = template.questions[index]
        guard question.isChoice else {
            throw .groupByNotChoice(question: groupBy, type: question.typeDescription, choices: choices)
        }
        groupQuestionIndex = index
        for label in question.optionLabels { groups[label] = Tally(template) }
    }

    /// Counts `form` when it is of the template and the filters include it; returns whether it
    /// was counted.
    @discardableResult
    public mutating func add(_ form: Form) -> Bool {
        guard form.template.id == template.id, filters.includes(form) else { return false }
        let counted = slots(of: form)
        overall.add(counted, template)
        if let groupQuestionIndex {
            let question = template.questions[groupQuestionIndex]
            // A question in a repeat: the labels chosen in any of its instances.
            let labels = counted.slots.filter { $0.index == groupQuestionIndex }
                .flatMap { $0.answer?.value.map(question.type.tallyLabels) ?? [] }
            if labels.isEmpty {
                ungrouped.add(counted, template)
            } else {
                for label in Set(labels) { groups[label, default: Tally(template)].add(counted, template) }
            }
        }
        let day = (form.submittedAt ?? form.updatedAt).timeIntervalSince1970 / 86_400
        daysSinceEpoch[Int(day.rounded(.down)), default: 0] += 1
        if form.isSimulated { simulated += 1 }
        // The template's scorer over the form's answers, as the export computes them.
        if let scoring = template.scoring { scores.add(scoring.score(form)) }
        return true
    }

    /// `form`'s answers where the template asks them: a flat template's questions once each; with
    /// repeats, each repeat's questions once per instance; each slot with whether it is relevant.
    private func slots(of form: Form) -> CountedForm {
        guard let logic else {
            return CountedForm(slots: template.questions.enumerated().map {
                CountedForm.Slot(index: $0.offset, answer: form.answers[$0.element.id], relevant: true)
            }, instances: [])
        }
        let now = Date()
        var slots: [CountedForm.Slot] = []
        func add(_ indices: [Int], at steps: [InstanceStep]) {
            for index in indices {
                let question = template.questions[index]
                let slot = AnswerSlot(question: question, instance: steps, index: index)
                let answer = form.answers[slot.key]
                let relevant = answer?.holdsSomething == true || logic.isRelevant(slot, in: form, now: now)
                slots.append(CountedForm.Slot(index: index, answer: answer, relevant: relevant))
            }
        }
        add(questionsByRepeat[""] ?? [], at: [])
        guard !repeats.isEmpty else { return CountedForm(slots: slots, instances: []) }
        var perRepeat: [String: Int] = [:]
        for instance in FormInstances(form, logic: logic, now: now).instances {
            perRepeat[instance.group.id, default: 0] += 1
            add(questionsByRepeat[instance.group.id] ?? [], at: instance.steps)
        }
        return CountedForm(slots: slots, instances: repeats.map { perRepeat[$0.id] ?? 0 })
    }

    /// Adds the counts of `later`, a builder of the same template and filters that counted the
    /// forms after this one's: the result is the same as one builder counting all the forms in
    /// that order (numbers keep their order, so sums and quartiles are the same to the bit).
    /// Forms can so be counted in pieces on several cores.
    public mutating func merge(_ later: StatisticsBuilder) {
        overall.merge(later.overall)
        ungrouped.merge(later.ungrouped)
        for (label, tally) in later.groups { groups[label, default: Tally(template)].merge(tally) }
        for (day, count) in later.daysSinceEpoch { daysSinceEpoch[day, default: 0] += count }
        simulated += later.simulated
        scores.merge(later.scores)
    }

    /// The statistics of the forms added so far.
    public func result() -> TemplateStatistics {
        var groupList: [GroupStatistics]?
        if let groupQuestionIndex {
            let labels = Self.ordered(template.questions[groupQuestionIndex].optionLabels, extra: groups.keys)
            groupList = labels.map { label in
                let tally = groups[label] ?? Tally(template)
                return GroupStatistics(label: label, forms: tally.forms, questions: tally.statistics(template),
                                       repeats: tally.repeatStatistics(repeats, template))
            } + [GroupStatistics(label: nil, forms: ungrouped.forms, questions: ungrouped.statistics(template),
                                 repeats: ungrouped.repeatStatistics(repeats, template))]
        }
        let days = daysSinceEpoch.keys.sorted().map { day in
            DayCount(day: UTCDay.string(Date(timeIntervalSince1970: TimeInterval(day) * 86_400)), count: daysSinceEpoch[day] ?? 0)
        }
        return TemplateStatistics(templateID: template.id, templateTitle: template.title, templateVersion: template.version,
                                  filters: filters, forms: overall.forms, simulated: simulated, days: days,
                                  questions: overall.statistics(template), groups: groupList,
                                  scores: template.scoring.map(scores.statistics),
                                  repeats: overall.repeatStatistics(repeats, template))
    }

    /// `known` in their order, then the other labels sorted.
    static func ordered(_ known: [String], extra: some Sequence<String>) -> [String] {
        let knownSet = Set(known)
        return known + extra.filter { !knownSet.contains($0) }.sorted()
    }
}

extension Question {
    /// A question whose answers are labels forms can be grouped by (multiple choice, true/false).
    public var isChoice: Bool {
        if case .choices = type.tally { return true }
        return false
    }

    /// The labels statistics count for a choice question: its options, or `true` and `false`.
    public var optionLabels: [String] {
        if case .choices(let labels, _) = type.tally { return labels }
        return []
    }
}

/// The labels a value stands for when counted as choices (any value, so none is lost).
enum ChoiceLabels {
    static func of(_ value: AnswerValue) -> [String] {
        switch value {
        case .choices(let labels): return labels
        case .bool(let bool): return [bool ? "true" : "false"]
        case .text(let text): return [text]
        case .number, .cells, .location: return [value.display]
        }
    }
}

/// One form's answers where the template asks them, and its instances per repeat.
private struct CountedForm {
    struct Slot {
        /// The question's index in `template.questions`.
        var index: Int
        var answer: Answer?
        var relevant: Bool
    }
    var slots: [Slot]
    /// Per repeat of the template, in order: the form's instances.
    var instances: [Int]
}

extension Answer {
    /// Whether it holds a value, a file or a comment that is not blank.
    var holdsSomething: Bool {
        value != nil || !media.isEmpty || !(comment.map { Trimmed.text($0).isEmpty } ?? true)
    }
}

/// The counts of one set of forms (all of them, or one group).
private struct Tally: Sendable {
    var forms = 0
    var questions: [QuestionTally]
    /// Per repeat of the template: each counted form's instances, in the order counted.
    var instances: [[Int]] = []

    init(_ template: Template) {
        questions = template.questions.map { _ in QuestionTally() }
    }

    mutating func add(_ form: CountedForm, _ template: Template) {
        forms += 1
        for slot in form.slots {
            questions[slot.index].slots += 1
            let counted = slot.answer.map { questions[slot.index].add($0, template.questions[slot.index]) } ?? false
            if !counted, !slot.relevant { questions[slot.index].notRelevant += 1 }
        }
        if instances.isEmpty { instances = form.instances.map { _ in [] } }
        for (index, count) in form.instances.enumerated() where index < instances.count { instances[index].append(count) }
    }

    mutating func merge(_ later: Tally) {
        forms += later.forms
        for index in questions.indices where index < later.questions.count { questions[index].merge(later.questions[index]) }
        if instances.isEmpty { instances = later.instances.map { _ in [] } }
        for index in instances.indices where index < later.instances.count { instances[index] += later.instances[index] }
    }

    /// Every question that takes an answer (a note is left out).
    func statistics(_ template: Template) -> [QuestionStatistics] {
        let logic = template.hasLogic
        return zip(template.questions, questions).filter { $0.0.type.takesAnswer }.map { question, tally in
            var result = tally.statistics(question, forms: forms)
            if logic { result.notRelevant = tally.notRelevant }
            if let repeated = template.repeatChain(of: question).last {
                result.repeat = repeated.id
                result.instances = tally.slots
            }
            return result
        }
    }

    /// Each repeat's instances per form; nil for a template without repeats.
    func repeatStatistics(_ repeats: [QuestionGroup], _ template: Template) -> [RepeatStatistics]? {
        guard !repeats.isEmpty else { return nil }
        return repeats.enumerated().map { index, group in
            let counts = index < instances.count ? instances[index] : []
            let sorted = counts.sorted()
            let middle = sorted.count / 2
            let median = sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? Double(sorted[middle]) : Double(sorted[middle - 1] + sorted[middle]) / 2
            return RepeatStatistics(id: group.id, text: group.label, parent: template.groupChain(from: group.id).filter(\.isRepeat).dropLast().last?.id,
                                    instances: counts.reduce(0, +), forms: counts.count, minimum: sorted.first ?? 0,
                                    median: median, maximum: sorted.last ?? 0)
        }
    }
}

/// The counts of one question.
private struct QuestionTally: Sendable {
    /// Places the question was asked: forms, or a repeat's instances.
    var slots = 0
    /// Slots where it was not relevant and holds nothing.
    var notRelevant = 0
    var answered = 0
    var commentOnly = 0
    var media: [String: Int] = [:]
    /// Choice labels; the values of short answers and of numbers that are not numbers.
    var labels: [String: Int] = [:]
    var numbers: [Double] = []
    var cells: [Cell: CellTally] = [:]
    /// Dates as days since 1970-01-01, times by hour: forms per day or hour.
    var days: [Int: Int] = [:]
    var hours: [Int: Int] = [:]
    /// Location answers: how many, the box so far, and the first `plottedPoints` of them.
    var pointCount = 0
    var box: GeoBoundingBox?
    var points: [PlottedPoint] = []

    static let mediaKinds = ["photo", "video", "audio", "other"]

    /// Counts `answer`; returns whether it counted as answered or comment-only.
    mutating func add(_ answer: Answer, _ question: Question) -> Bool {
        let before = answered + commentOnly
        count(answer, question)
        return answered + commentOnly > before
    }

    private mutating func count(_ answer: Answer, _ question: Question) {
        for name in answer.media {
            let kind = MediaKind(extension: (name as NSString).pathExtension)?.rawValue ?? "other"
            media[kind, default: 0] += 1
        }
        // A question answered by its files (a photo) is answered when it has one.
        if case .files = question.type.tally {
            if question.type.isDone(answer), !answer.media.isEmpty {
                answered += 1
            } else if let comment = answer.comment, !Trimmed.text(comment).isEmpty {
                commentOnly += 1
            }
            return
        }
        guard let value = answer.value else {
            if let comment = answer.comment, !Trimmed.text(comment).isEmpty { commentOnly += 1 }
            return
        }
        answered += 1
        switch question.type.tally {
        case .choices:
            // A label twice in one form (hand-edited) still counts that form once.
            for label in Set(question.type.tallyLabels(value)) { labels[label, default: 0] += 1 }
        case .numbers:
            if case .number(let number) = value {
                numbers.append(number)
            } else if let number = NumberText.value(value.display) {
                numbers.append(number)
            } else {
                addText(value.display)
            }
        case .texts:
            addText(value.display)
        case .days:
            // A date, or the local date a date and time was answered on.
            if case .text(let text) = value, let date = try? LocalDate.parse(String(Trimmed.text(text).prefix(10))) {
                days[date.daysSinceEpoch, default: 0] += 1
            } else {
                addText(value.display)
            }
        case .hours:
            if case .text(let text) = value, let time = try? LocalTime.parse(Trimmed.text(text)) {
                hours[time.hour, default: 0] += 1
            } else {
                addText(value.display)
            }
        case .notCounted:
            break
        case .grid:
            guard case .cells(let rows) = value else {
                addText(value.display)
                return
            }
            for (row, rowCells) in rows.enumerated() {
                for (column, cell) in rowCells.enumerated() {
                    guard let text = cell.map(Trimmed.text), !text.isEmpty else { continue }
                    cells[Cell(row: row, column: column), default: CellTally()].add(text)
                }
            }
        case .locations:
            guard case .location(let point) = value else {
                addText(value.display)
                return
            }
            addPoint(point)
        case .files:
            break
        }
    }

    private mutating func addPoint(_ point: Geopoint) {
        pointCount += 1
        box = GeoBoundingBox([point] + (box.flatMap(Self.corners) ?? []))
        if points.count < StatisticsBuilder.plottedPoints {
            points.append(PlottedPoint(latitude: point.latitude, longitude: point.longitude))
        }
    }

    /// The box's south-west and north-east corners, so a box grows by points one at a time.
    private static func corners(_ box: GeoBoundingBox) -> [Geopoint]? {
        guard let southWest = try? Geopoint(latitude: box.south, longitude: box.west),
              let northEast = try? Geopoint(latitude: box.north, longitude: box.east) else { return nil }
        return [southWest, northEast]
    }

    mutating func merge(_ later: QuestionTally) {
        slots += later.slots
        notRelevant += later.notRelevant
        answered += later.answered
        commentOnly += later.commentOnly
        media.merge(later.media, uniquingKeysWith: +)
        labels.merge(later.labels, uniquingKeysWith: +)
        numbers += later.numbers
        for (cell, tally) in later.cells { cells[cell, default: CellTally()].merge(tally) }
        days.merge(later.days, uniquingKeysWith: +)
        hours.merge(later.hours, uniquingKeysWith: +)
        pointCount += later.pointCount
        if let other = later.box { box = GeoBoundingBox((Self.corners(other) ?? []) + (box.flatMap(Self.corners) ?? [])) }
        points += later.points.prefix(max(0, StatisticsBuilder.plottedPoints - points.count))
    }

    private mutating func addText(_ text: String) {
        let trimmed = Trimmed.text(text)
        guard !trimmed.isEmpty else { return }
        labels[trimmed, default: 0] += 1
    }

    func statistics(_ question: Question, forms: Int) -> QuestionStatistics {
        var result = QuestionStatistics(
            id: question.id, text: question.text, type: question.typeName, answered: answered, commentOnly: commentOnly,
            unanswered: slots - answered - commentOnly - notRelevant,
            media: Self.mediaKinds.compactMap { kind in media[kind].map { MediaCount(kind: kind, count: $0) } })
        switch question.type.tally {
        case .choices(_, let multipleAnswers):
            result.options = options(question)
            result.multipleAnswers = multipleAnswers
        case .numbers(let integer):
            result.numbers = NumberSummary(values: numbers, integer: integer)
            if !labels.isEmpty { (result.values, result.distinctValues) = (Self.top(labels), labels.count) }
        case .texts:
            (result.values, result.distinctValues) = (Self.top(labels), labels.count)
        case .days:
            result.dates = days.keys.sorted().map { day in
                DayCount(day: UTCDay.string(Date(timeIntervalSince1970: TimeInterval(day) * 86_400)), count: days[day] ?? 0)
            }
            if !labels.isEmpty { (result.values, result.distinctValues) = (Self.top(labels), labels.count) }
        case .hours:
            result.hours = (0..<24).map { HourCount(hour: $0, count: hours[$0] ?? 0) }
            if !labels.isEmpty { (result.values, result.distinctValues) = (Self.top(labels), labels.count) }
        case .notCounted:
            break
        case .grid(let grid):
            let (rows, columns, noCells) = (grid.rows, grid.columns, grid.noCells)
            if !labels.isEmpty { (result.values, result.distinctValues) = (Self.top(labels), labels.count) }
            var positions: [Cell] = []
            for row in rows.indices {
                for column in columns.indices where !noCells.contains(Cell(row: row, column: column)) {
                    positions.append(Cell(row: row, column: column))
                }
            }
            let known = Set(positions)
            positions += cells.keys.filter { !known.contains($0) }.sorted()
            result.cells = positions.map { cell in
                let tally = cells[cell] ?? CellTally()
                var statistics = CellStatistics(
                    row: cell.row, column: cell.column,
                    rowLabel: rows.indices.contains(cell.row) ? rows[cell.row] : "row \(cell.row + 1)",
                    columnLabel: columns.indices.contains(cell.column) ? columns[cell.column] : "column \(cell.column + 1)",
                    answered: tally.answered)
                if tally.answered > 0, tally.numbers.count == tally.answered {
                    statistics.numbers = NumberSummary(values: tally.numbers, integer: tally.numbers.allSatisfy { $0.rounded() == $0 })
                } else if tally.answered > 0 {
                    (statistics.values, statistics.distinctValues) = (Self.top(tally.texts), tally.texts.count)
                }
                return statistics
            }
        case .locations:
            if !labels.isEmpty { (result.values, result.distinctValues) = (Self.top(labels), labels.count) }
            result.locations = LocationStatistics(count: pointCount, boundingBox: box.map(LocationBox.init), points: points,
                                                  pointsOmitted: pointCount - points.count)
        case .files:
            // Answered forms and the files per kind (`media`) say it all.
            break
        }
        return result
    }

    private func options(_ question: Question) -> [OptionCount] {
        StatisticsBuilder.ordered(question.optionLabels, extra: labels.keys).map { label in
            let count = labels[label] ?? 0
            return OptionCount(label: label, count: count, percent: answered == 0 ? 0 : Double(count) * 100 / Double(answered))
        }
    }

    /// The most frequent values, most frequent first, ties by value.
    static func top(_ counts: [String: Int]) -> [ValueCount] {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(StatisticsBuilder.topValues).map { ValueCount(value: $0.key, count: $0.value) }
    }
}

/// The scores of the counted forms, by key, in the order they came.
struct ScoreTally: Sendable {
    var numbers: [String: [Double]] = [:]
    var words: [String: [String: Int]] = [:]

    mutating func add(_ sheet: ScoreSheet) {
        for entry in sheet.values {
            switch entry.value {
            case .number(let number): numbers[entry.key, default: []].append(number)
            case .text(let text): words[entry.key, default: [:]][text, default: 0] += 1
            }
        }
    }

    mutating func merge(_ later: ScoreTally) {
        for (key, values) in later.numbers { numbers[key, default: []] += values }
        for (key, counts) in later.words { words[key, default: [:]].merge(counts, uniquingKeysWith: +) }
    }

    /// Every key that occurred: the scorer's keys in its order, then any other sorted.
    func statistics(_ scoring: Scoring) -> [ScoreStatistics] {
        let keys = StatisticsBuilder.ordered(ScoreSheet.keys(of: scoring), extra: Set(numbers.keys).union(words.keys))
        return keys.compactMap { key in
            let values = numbers[key] ?? []
            let counts = words[key] ?? [:]
            let forms = values.count + counts.values.reduce(0, +)
            guard forms > 0 else { return nil }
            let categories = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map {
                OptionCount(label: $0.key, count: $0.value, percent: Double($0.value) * 100 / Double(forms))
            }
            return ScoreStatistics(key: key, forms: forms,
                                   numbers: NumberSummary(values: values, integer: values.allSatisfy { $0.rounded() == $0 }),
                                   categories: categories.isEmpty ? nil : categories)
        }
    }
}

/// The values of one table cell.
private struct CellTally: Sendable {
    var answered = 0
    var numbers: [Double] = []
    var texts: [String: Int] = [:]

    mutating func add(_ text: String) {
        answered += 1
        if let number = NumberText.value(text) { numbers.append(number) }
        texts[text, default: 0] += 1
    }

    mutating func merge(_ later: CellTally) {
        answered += later.answered
        numbers += later.numbers
        texts.merge(later.texts, uniquingKeysWith: +)
    }
}

/// A number typed as text (a table cell, a value of another type): a finite decimal, white
/// space around it ignored; `nan`, `inf` and hexadecimal are text.
enum NumberText {
    static func value(_ text: String) -> Double? {
        let trimmed = Trimmed.text(text)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (48...57).contains($0) || [43, 45, 46, 69, 101].contains($0) }),
              let number = Double(trimmed), number.isFinite else { return nil }
        return number
    }
}

/// Text without white space and newlines at either end (Foundation's `whitespacesAndNewlines`),
/// skipping Foundation when both ends are plain ASCII that is not white space (most values).
enum Trimmed {
    static func text(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last else { return text }
        func plain(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
        if plain(first), plain(last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
