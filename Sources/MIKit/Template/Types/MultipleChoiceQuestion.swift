import Foundation

/// `multipleChoice`: options to choose from, one (`Max-answers` 1, the default), up to n, or any
/// number (0). An option is a label (`"Mechanical seal"`, its own name) or a name and a label
/// (`{"name": "seal", "label": "Mechanical seal"}`, as XLSForm's choices). Answers are the chosen
/// names in the template's order; readers show the labels.
public struct MultipleChoiceQuestion: QuestionType {
    /// One option: the name answers store and exports write, the label people read.
    public struct Choice: Sendable, Equatable {
        public var name: String
        public var label: String
        /// Further attributes to filter on (`{"name": "n1", "label": "North 1", "region": "north"}`),
        /// read by the question's `choiceFilter` as `${region}`; allowed only on a question that
        /// has a `choiceFilter`.
        public var attributes: [String: String]
        /// Its label in each language, when given in several (the default's included).
        public var labels: [String: String]
        public init(name: String, label: String, attributes: [String: String] = [:], labels: [String: String] = [:]) {
            self.name = name
            self.label = label
            self.attributes = attributes
            self.labels = labels
        }
        /// An option given as a plain string: its label is its name.
        public init(_ label: String) { self.init(name: label, label: label) }
    }

    public var choices: [Choice]
    /// 1 = exactly one, 0 = any number, n = up to n.
    public var maxAnswers: Int

    public init(choices: [Choice], maxAnswers: Int) {
        self.choices = choices
        self.maxAnswers = maxAnswers
    }

    /// Options given as plain strings (each its own name).
    public init(options: [String], maxAnswers: Int) {
        self.init(choices: options.map(Choice.init), maxAnswers: maxAnswers)
    }

    /// A `choiceFilter` filters the options.
    public var filterableChoices: [Choice]? { choices }

    /// The options' labels, in the template's order.
    public var options: [String] { choices.map(\.label) }
    /// The options' names, in the template's order.
    public var names: [String] { choices.map(\.name) }

    /// The options' labels in `language`.
    public func localized(to language: String) -> any QuestionType {
        var copy = self
        copy.choices = choices.map { choice in
            var localized = choice
            if let label = choice.labels[language] { localized.label = label }
            return localized
        }
        return copy
    }

    /// The label of a stored name; a name the template no longer has is shown as it is.
    public func label(of name: String) -> String { choices.first { $0.name == name }?.label ?? name }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("multipleChoice")
    public static let displayName = "Multiple choice"
    public static let keys: [TemplateKeys.Key] = [.options, .maxAnswers]
    public static let editorFields = [
        EditorField(.options, .options, "Options"),
        EditorField(.maxAnswers, .wholeNumber, "Max-answers (1 = one, 0 = any, n = up to n)", placeholder: "1"),
    ]
    public static let nestedKeys: [TemplateKeys.Key] = [.choiceName, .choiceLabel]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        guard let value = object[validator.keys[.options]] else { validator.problem(label, .options, "missing"); return nil }
        guard let items = value.arrayValue else {
            validator.problem(label, .options, "expected an array of options (strings or {\"\(validator.keys[.choiceName])\", \"\(validator.keys[.choiceLabel])\"} objects), found \(value.kindDescription)")
            return nil
        }
        var choices: [Choice] = []
        choices.reserveCapacity(items.count)
        let filtered = object[validator.keys[.choiceFilter]] != nil
        for (index, item) in items.enumerated() {
            guard let choice = Self.choice(item, entry: index + 1, question: label, filtered: filtered, validator: &validator) else { return nil }
            choices.append(choice)
        }
        if choices.isEmpty { validator.problem(label, .options, "a multiple-choice question needs at least one option"); return nil }
        var seenNames: Set<String> = [], seenLabels: Set<String> = []
        for choice in choices {
            if !seenNames.insert(choice.name).inserted {
                validator.problem(label, .options, choice.name == choice.label
                    ? "option \"\(DisplayText.escaped(choice.name))\" is listed twice"
                    : "option name \"\(DisplayText.escaped(choice.name))\" is listed twice")
            } else if !seenLabels.insert(choice.label).inserted {
                validator.problem(label, .options, "option label \"\(DisplayText.escaped(choice.label))\" is listed twice")
            }
        }
        // A typed answer may give a name or a label: one must never mean two options.
        for (index, choice) in choices.enumerated() where choice.name != choice.label {
            if let other = choices.indices.first(where: { $0 != index && choices[$0].label == choice.name }) {
                validator.problem(label, .options, "option name \"\(DisplayText.escaped(choice.name))\" (entry \(index + 1)) is the label of entry \(other + 1), so an answer could mean either")
            }
        }
        var maxAnswers = 1
        if let value = object[validator.keys[.maxAnswers]] {
            if let integer = value.integerValue, integer >= 0 {
                maxAnswers = integer
                if integer > choices.count {
                    validator.problem(label, .maxAnswers, "\(integer) is more than the \(choices.count) options (use 0 for any number)")
                }
            } else {
                validator.problem(label, .maxAnswers, "expected a whole number of at least 0 (1 = one, 0 = any), found \(validator.describe(value))")
            }
        }
        return Self(choices: choices, maxAnswers: maxAnswers)
    }

    /// One entry of `options`: a label, or a name (no white space: exports separate names by
    /// spaces) and a label.
    /// `filtered`: the question has a `choiceFilter`, so an option may carry further string
    /// attributes to filter on.
    static func choice(_ item: JSONValue, entry: Int, question label: String, filtered: Bool = false,
                       validator: inout TemplateValidator) -> Choice? {
        let (nameKey, labelKey, optionsKey) = (validator.keys[.choiceName], validator.keys[.choiceLabel], validator.keys[.options])
        switch item {
        case .string(let text) where !BlankText.isBlank(text):
            validator.checkText(text, label, .options, field: "\(optionsKey) entry \(entry)")
            return Choice(text)
        case .object(let fields):
            func text(_ key: String) -> String? {
                guard let value = fields[key] else {
                    validator.problem(label, .options, "entry \(entry) has no \"\(key)\"")
                    return nil
                }
                guard let text = value.stringValue, !BlankText.isBlank(text) else {
                    validator.problem(label, .options, "entry \(entry): \"\(key)\" must be a non-empty string, found \(validator.describe(value))")
                    return nil
                }
                validator.checkText(text, label, .options, field: "\(optionsKey) entry \(entry) \(key)")
                return text
            }
            let name = text(nameKey)
            var shown: String?
            var labels: [String: String] = [:]
            switch fields[labelKey] {
            case nil: validator.problem(label, .options, "entry \(entry) has no \"\(labelKey)\"")
            case let value?:
                if let localized = validator.localizedText(value, label, .options, field: "\(optionsKey) entry \(entry) \(labelKey)") {
                    (shown, labels) = localized
                }
            }
            var attributes: [String: String] = [:]
            for other in fields.keys.sorted() where other != nameKey && other != labelKey {
                if filtered {
                    if let value = text(other) { attributes[other] = value }
                } else {
                    validator.problem(label, .options, "entry \(entry) has an unknown key \"\(DisplayText.escaped(other))\" (an option has \"\(nameKey)\" and \"\(labelKey)\")")
                }
            }
            guard let name, let shown else { return nil }
            if BlankText.containsSpaceOrNewline(name) {
                validator.problem(label, .options, "entry \(entry): the name \"\(DisplayText.escaped(name))\" has white space (names are written space-separated in exports; use the label for words)")
                return nil
            }
            return Choice(name: name, label: shown, attributes: attributes, labels: labels)
        default:
            validator.problem(label, .options, "entry \(entry) must be a non-empty string or a {\"\(nameKey)\", \"\(labelKey)\"} object, found \(validator.describe(item))")
            return nil
        }
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        object[keys[.options]] = .array(choices.map { choice in
            choice.name == choice.label && choice.attributes.isEmpty && choice.labels.isEmpty ? .string(choice.label)
                : .object(choice.attributes.mapValues(JSONValue.string)
                    .merging([keys[.choiceName]: .string(choice.name),
                              keys[.choiceLabel]: choice.labels.isEmpty ? .string(choice.label) : .object(choice.labels.mapValues(JSONValue.string))]) { _, own in own })
        })
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

    /// Option numbers, names or labels: `2`, `1,3`, `1 3`, `seal, drain`, `Mechanical seal, Casing drain`.
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

    /// An array of option names or labels, or one.
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

    /// Options by name or label, as an answers file gives them.
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

    /// An option by its name or label: exactly, then ignoring case.
    private func optionIndex(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return choices.firstIndex { $0.name == trimmed || $0.label == trimmed }
            ?? choices.firstIndex { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame || $0.label.caseInsensitiveCompare(trimmed) == .orderedSame }
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
        let list = choices.enumerated().map { "\($0 + 1). \(Self.describe($1))" }.joined(separator: ", ")
        return rules.refuse("\"\(text.trimmingCharacters(in: .whitespaces))\" is not one of the options (\(list))")
    }

    /// `Mechanical seal`, or `Mechanical seal (seal)` when the name differs.
    static func describe(_ choice: Choice) -> String { choice.name == choice.label ? choice.label : "\(choice.label) (\(choice.name))" }

    /// The chosen options' names, each once and in the template's order, within the question's limit.
    private func chosen(_ indices: [Int], _ rules: AnswerRules) throws -> AnswerValue {
        let chosen = Set(indices)
        if chosen.isEmpty { throw rules.refuse("choose at least one option") }
        if maxAnswers == 1, chosen.count > 1 {
            throw rules.refuse("only one answer may be chosen, got \(chosen.count)")
        }
        if maxAnswers > 1, chosen.count > maxAnswers {
            throw rules.refuse("at most \(maxAnswers) answers may be chosen, got \(chosen.count)")
        }
        return .choices(chosen.sorted().map { choices[$0].name })
    }

    // MARK: mi fill

    public var promptLines: [String] {
        choices.enumerated().map { number, choice in "  \(number + 1). \(DisplayText.escaped(Self.describe(choice)))" }
    }

    public var answerHint: String { maxAnswers == 1 ? "Option number " : "Option numbers, comma-separated " }

    public var completions: [String] { options + choices.filter { $0.name != $0.label }.map(\.name) }

    // MARK: Simulation, statistics, exports

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        guard !choices.isEmpty else { return nil }
        let most = maxAnswers == 0 ? choices.count : min(max(maxAnswers, 1), choices.count)
        let count = most == 1 ? 1 : generator.int(in: 1...most)
        var indices = Array(choices.indices)
        // A partial Fisher–Yates shuffle: the first `count` are a uniform choice.
        for i in 0..<count { indices.swapAt(i, i + generator.below(indices.count - i)) }
        return .array(indices.prefix(count).sorted().map { .string(choices[$0].name) })
    }

    /// Counted by label (a stored name the template no longer has, by that name).
    public var tally: TallyShape { .choices(labels: options, multipleAnswers: maxAnswers != 1) }

    public func tallyLabels(_ value: AnswerValue) -> [String] {
        if case .choices(let chosen) = value { return chosen.map(label(of:)) }
        return ChoiceLabels.of(value)
    }

    /// As ODK Central: `<id>` with the chosen names (space-separated when several may be
    /// chosen), then `<id>/<name>` per option holding 1 or 0 (empty when the question has no value).
    public func csvHeader(question id: String) -> [String] { [id] + names.map { "\(id)/\($0)" } }

    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] {
        if case .choices(let chosen)? = value {
            let set = Set(chosen)
            return [chosen.joined(separator: " ")] + names.map { set.contains($0) ? "1" : "0" }
        }
        return [value.map(CSVLayout.text) ?? ""] + names.map { _ in "" }
    }

    /// The labels chosen and the names and labels a search may name.
    public func searchText(_ value: AnswerValue) -> String? {
        guard case .choices(let chosen) = value else { return value.display }
        let labels = chosen.map(label(of:))
        return (labels + chosen.filter { !labels.contains($0) }).joined(separator: ", ")
    }

    // MARK: Presentation

    /// The options ticked; a value of another type (the question changed type) as text.
    public func presentation(of value: AnswerValue?) -> AnswerShape? {
        switch value {
        case nil: return .choices(ChoiceList(options: options, chosen: []))
        case .choices(let chosen)?: return .choices(ChoiceList(options: options, chosen: chosen.map(label(of:))))
        case let other?: return .text(other.display)
        }
    }
}

extension TemplateKeys.Key {
    public static let multipleChoice = MultipleChoiceQuestion.typeKey
    public static let options = TemplateKeys.Key("options")
    public static let maxAnswers = TemplateKeys.Key("maxAnswers", defaultName: "Max-answers")
    /// Inside an option object.
    public static let choiceName = TemplateKeys.Key("name")
    public static let choiceLabel = TemplateKeys.Key("label")
}

extension Question.Kind {
    public static func multipleChoice(options: [String], maxAnswers: Int) -> Self {
        Self(MultipleChoiceQuestion(options: options, maxAnswers: maxAnswers))
    }
}
