import Foundation

/// Fills forms with valid random answers, reproducibly from a seed (seed 002's simulated
/// repository): enough realistic data to try the statistics, exports and reports without real
/// inspections. Every value goes through the same `AnswerRules` a typed answer goes through, and
/// the form is marked `simulated` in its audit trail so it is never mistaken for a real one.
public struct Simulator: Sendable {
    /// The share of questions left with a comment instead of an answer, as technicians do when
    /// something cannot be inspected.
    public static let commentOnlyRate = 0.05

    /// Plausible short answers.
    static let words = [
        "OK", "Clean", "Minor wear", "Replaced seal", "Leak at flange", "Loose bolt tightened",
        "Needs follow-up", "Corrosion on casing", "Within tolerance", "Noise at start-up",
        "Filter changed", "Label missing", "Painted", "Vibration normal", "Oil topped up",
    ]

    /// Why a question was not answered.
    static let comments = [
        "Not accessible today", "Area closed for maintenance", "Instrument missing",
        "Could not check: equipment running", "Ask the operator next visit",
    ]

    public private(set) var generator: SeededGenerator

    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// Answers (or comments) for every question of `template`, as an answers file would give them.
    public mutating func updates(for template: Template) -> [AnswerUpdate] {
        template.questions.map { question in
            if generator.chance(Self.commentOnlyRate) {
                return AnswerUpdate(question: question.id, value: nil, comment: generator.pick(Self.comments))
            }
            guard let value = value(for: question.kind) else {
                return AnswerUpdate(question: question.id, value: nil, comment: "No value possible")
            }
            return AnswerUpdate(question: question.id, value: .json(value))
        }
    }

    /// Fills `form` with answers for every question, checked by `AnswerRules`, and records that
    /// they are simulated. Throws (leaving `form` unchanged) only if a rule refuses a value,
    /// which would be a defect of the simulator.
    public mutating func fill(_ form: inout Form, by user: String, at date: Date) throws {
        var filled = form
        filled.record(AuditEvent(at: date, by: user, action: .simulated))
        let changed = try Workflow.apply(updates(for: form.template), to: &filled)
        filled.record(AuditEvent(at: date, by: user, action: .answered, questions: changed))
        form = filled
    }

    /// A random valid value, as JSON; nil when the question admits none (an integer question
    /// whose range holds no whole number).
    mutating func value(for kind: Question.Kind) -> JSONValue? {
        switch kind {
        case .multipleChoice(let options, let maxAnswers):
            guard !options.isEmpty else { return nil }
            let most = maxAnswers == 0 ? options.count : min(max(maxAnswers, 1), options.count)
            let count = most == 1 ? 1 : generator.int(in: 1...most)
            var indices = Array(options.indices)
            // A partial Fisher–Yates shuffle: the first `count` are a uniform choice.
            for i in 0..<count { indices.swapAt(i, i + generator.below(indices.count - i)) }
            return .array(indices.prefix(count).sorted().map { .string(options[$0]) })
        case .trueFalse:
            return .bool(generator.chance(0.5))
        case .shortAnswer:
            return .string(generator.pick(Self.words))
        case .numeric(let integer, let min, let max):
            return number(integer: integer, min: min, max: max).map(JSONValue.number)
        case .table(let rows, let columns, let noCells):
            return .array(rows.indices.map { r in
                .array(columns.indices.map { c in
                    noCells.contains(Cell(row: r, column: c)) ? .null : .number((generator.unit() * 1000).rounded() / 10)
                })
            })
        }
    }

    /// Roughly normal around the middle of the range, clamped to it; whole when `integer`.
    mutating func number(integer: Bool, min: Double?, max: Double?) -> Double? {
        var low = min ?? (max.map { $0 - 100 } ?? 0)
        var high = max ?? (min.map { $0 + 100 } ?? 100)
        if integer { (low, high) = (low.rounded(.up), high.rounded(.down)) }
        guard low <= high else { return nil }
        let middle = (low + high) / 2
        let spread = (high - low) / 6
        var value = Swift.min(Swift.max(middle + spread * generator.normal(), low), high)
        value = integer ? value.rounded() : (value * 100).rounded() / 100
        return Swift.min(Swift.max(value, low), high)
    }
}
