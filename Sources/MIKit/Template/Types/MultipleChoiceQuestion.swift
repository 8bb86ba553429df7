import Foundation

/// `multipleChoice`: options to choose from, one (`Max-answers` 1, the default), up to n, or any
/// number (0). Answers are the chosen labels in the template's order.
public struct MultipleChoiceQuestion: QuestionType {
    public var options: [String]
    /// 1 = exactly one, 0 = any number, n = up to n.
    public var maxAnswers: Int

    public init(options: [String], maxAnswers: Int) {
        self.options = options
        self.maxAnswers = maxAnswers
    }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("multipleChoice")
    public static let keys: [TemplateKeys.Key] = [.options, .maxAnswers]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        guard let options = validator.strings(object, .options, question: label) else { return nil }
        if options.isEmpty { validator.problem(label, .options, "a multiple-choice question needs at least one option"); return nil }
        var seen: Set<String> = []
        for option in options where !seen.insert(option).inserted {
            validator.problem(label, .options, "option \"\(DisplayText.escaped(option))\" is listed twice")
        }
        var maxAnswers = 1
        if let value = object[validator.keys[.maxAnswers]] {
            if let integer = value.integerValue, integer >= 0 {
                maxAnswers = integer
                if integer > options.count {
                    validator.problem(label, .maxAnswers, "\(integer) is more than the \(options.count) options (use 0 for any number)")
                }
            } else {
                validator.problem(label, .maxAnswers, "expected a whole number of at least 0 (1 = one, 0 = any), found \(validator.describe(value))")
            }
        }
        return Self(options: options, maxAnswers: maxAnswers)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        object[keys[.options]] = .array(options.map(JSONValue.string))
        object[keys[.maxAnswers]] = .number(Double(maxAnswers))
    }

    public var typeDescription: String {
        switch maxAnswers {
        case 1: return "multiple choice, one answer"
        case 0: return "multiple choice, any number of answers"
        default: return "multiple choice, up to \(maxAnswers) answers"
        }
    }

    // MARK: Answers

    /// Option numbers or labels: `2`, `1,3`, `1 3`, `Mechanical seal, Casing drain`.
    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let line = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if let index = optionIndex(line) { return try chosen([index], rules) }
        var indices: [Int] = []
        for part in line.split(separator: ",") {
            let part = part.trimmingCharacters(in: .whitespaces)
            if !part.isEmpty { indices += try optionIndices(in: part, rules) }
        }
        return try chosen(indices, rules)
    }

    /// An array of option labels, or one label.
    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        switch json {
        case .array(let items):
            var words: [String] = []
            for item in items {
                guard let label = item.stringValue else {
                    throw rules.refuse("expected option labels (strings), found \(item.kindDescription)")
                }
                words.append(label)
            }
            return try choices(labels: words, rules)
        case .string(let label): return try choices(labels: [label], rules)
        default: throw rules.refuse("expected an array of option labels, found \(json.kindDescription)")
        }
    }

    /// Options by label only, as an answers file gives them.
    func choices(labels: [String], _ rules: AnswerRules) throws -> AnswerValue {
        try chosen(labels.map { label in
            guard let index = optionIndex(label) else { throw notAnOption(label, rules) }
            return index
        }, rules)
    }

    /// The options of one comma-separated part of a line.
    private func optionIndices(in part: String, _ rules: AnswerRules) throws -> [Int] {
        if let index = optionIndex(part) { return [index] }
        let words = part.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.allSatisfy({ Int($0) != nil }) { return try words.map { try optionNumber($0, rules) } }
        if let indices = segment(words[...], rules) { return indices }
        throw notAnOption(part, rules)
    }

    /// Splits words into labels and numbers, longest label first (`Mechanical seal Casing drain`).
    private func segment(_ words: ArraySlice<String>, _ rules: AnswerRules) -> [Int]? {
        guard !words.isEmpty else { return [] }
        for length in stride(from: words.count, through: 1, by: -1) {
            let candidate = words.prefix(length).joined(separator: " ")
            guard let index = optionIndex(candidate) ?? (length == 1 ? try? optionNumber(candidate, rules) : nil) else { continue }
            if let rest = segment(words.dropFirst(length), rules) { return [index] + rest }
        }
        return nil
    }

    /// An option by its label: exactly, then ignoring case.
    private func optionIndex(_ label: String) -> Int? {
        let trimmed = label.trimmingCharacters(in: .whitespaces)
        return options.firstIndex(of: trimmed) ?? options.firstIndex { $0.caseInsensitiveCompare(trimmed) == .orderedSame }
    }

    /// An option by its number from 1.
    private func optionNumber(_ word: String, _ rules: AnswerRules) throws -> Int {
        guard let number = Int(word) else { throw notAnOption(word, rules) }
        guard options.indices.contains(number - 1) else {
            throw rules.refuse("there is no option \(number) (options are 1 to \(options.count))")
        }
        return number - 1
    }

    private func notAnOption(_ text: String, _ rules: AnswerRules) -> AnswerError {
        let list = options.enumerated().map { "\($0 + 1). \($1)" }.joined(separator: ", ")
        return rules.refuse("\"\(text.trimmingCharacters(in: .whitespaces))\" is not one of the options (\(list))")
    }

    /// The chosen options, each once and in the template's order, within the question's limit.
    private func chosen(_ indices: [Int], _ rules: AnswerRules) throws -> AnswerValue {
        let chosen = Set(indices)
        if chosen.isEmpty { throw rules.refuse("choose at least one option") }
        if maxAnswers == 1, chosen.count > 1 {
            throw rules.refuse("only one answer may be chosen, got \(chosen.count)")
        }
        if maxAnswers > 1, chosen.count > maxAnswers {
            throw rules.refuse("at most \(maxAnswers) answers may be chosen, got \(chosen.count)")
        }
        return .choices(chosen.sorted().map { options[$0] })
    }

    // MARK: mi fill

    public var promptLines: [String] {
        options.enumerated().map { number, option in "  \(number + 1). \(DisplayText.escaped(option))" }
    }

    public var answerHint: String { maxAnswers == 1 ? "Option number " : "Option numbers, comma-separated " }

    public var completions: [String] { options }

    // MARK: Simulation, statistics, exports

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        guard !options.isEmpty else { return nil }
        let most = maxAnswers == 0 ? options.count : min(max(maxAnswers, 1), options.count)
        let count = most == 1 ? 1 : generator.int(in: 1...most)
        var indices = Array(options.indices)
        // A partial Fisher–Yates shuffle: the first `count` are a uniform choice.
        for i in 0..<count { indices.swapAt(i, i + generator.below(indices.count - i)) }
        return .array(indices.prefix(count).sorted().map { .string(options[$0]) })
    }

    public var tally: TallyShape { .choices(labels: options, multipleAnswers: maxAnswers != 1) }

    /// `<id>` with the chosen labels joined by ` | `, then `<id>/<label>` per option holding 1 or
    /// 0 (empty when the question has no value).
    public func csvHeader(question id: String) -> [String] { [id] + options.map { "\(id)/\($0)" } }

    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] {
        if case .choices(let chosen)? = value {
            let set = Set(chosen)
            return [chosen.joined(separator: " | ")] + options.map { set.contains($0) ? "1" : "0" }
        }
        return [value.map(CSVLayout.text) ?? ""] + options.map { _ in "" }
    }

    // MARK: Presentation

    /// The options ticked; a value of another type (the question changed type) as text.
    public func presentation(of value: AnswerValue?) -> AnswerShape? {
        switch value {
        case nil: return .choices(ChoiceList(options: options, chosen: []))
        case .choices(let chosen)?: return .choices(ChoiceList(options: options, chosen: chosen))
        case let other?: return .text(other.display)
        }
    }
}

extension TemplateKeys.Key {
    public static let multipleChoice = MultipleChoiceQuestion.typeKey
    public static let options = TemplateKeys.Key("options")
    public static let maxAnswers = TemplateKeys.Key("maxAnswers", defaultName: "Max-answers")
}

extension Question.Kind {
    public static func multipleChoice(options: [String], maxAnswers: Int) -> Self {
        Self(MultipleChoiceQuestion(options: options, maxAnswers: maxAnswers))
    }
}
