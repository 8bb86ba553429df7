import Foundation

/// An answer refused: names the question and the rule it broke.
public struct AnswerError: ClassifiedError, Sendable, Equatable {
    public var question: String
    public var rule: String

    public init(question: String, rule: String) {
        self.question = question
        self.rule = rule
    }

    public var errorDescription: String? { "question \(question): \(rule) — nothing was saved" }
    public var failureClass: FailureClass { .badData }
    public var code: String { "invalid-answer" }
}

/// Turns what a technician typed (or a script wrote) into a valid value for a question, or
/// says which rule it breaks.
public struct AnswerRules: Sendable {
    public let question: Question
    /// How messages name the question: `q3 (3 of 7)`.
    public let label: String

    public init(question: Question, position: Int, count: Int) {
        self.question = question
        self.label = "\(question.id) (\(position) of \(count))"
    }

    func refuse(_ rule: String) -> AnswerError { AnswerError(question: label, rule: rule) }

    /// From command-line words (`mi answer FORM QUESTION WORDS…`): the words joined by spaces
    /// and read as one typed line, so `mi answer` accepts exactly what `mi fill` accepts.
    public func value(fromWords words: [String]) throws -> AnswerValue {
        guard !words.isEmpty else { throw refuse("no value given") }
        return try value(fromLine: words.joined(separator: " "))
    }

    /// From one typed line, the single parser behind `mi fill` and `mi answer`: option numbers or
    /// labels (`2`, `1,3`, `1 3`, `Mechanical seal, Casing drain`), true/false or yes/no, text, a
    /// number (with a dot), or a table as one JSON array of rows.
    public func value(fromLine line: String) throws -> AnswerValue {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let words = trimmed.split(whereSeparator: \.isWhitespace)
        switch question.kind {
        case .multipleChoice:
            return try choices(fromLine: trimmed)
        case .trueFalse:
            guard words.count <= 1 else { throw refuse("expected one of true or false, got \(words.count) values") }
            return try truth(trimmed)
        case .shortAnswer:
            return try text(line)
        case .numeric:
            guard words.count <= 1 else { throw refuse("expected one number, got \(words.count) values") }
            return try number(trimmed)
        case .table:
            guard let json = try? JSONValue.parse(Data(trimmed.utf8)) else {
                throw refuse("a table answer is one JSON array of rows, e.g. '[[\"1\",null],[\"2\",\"3\"]]' (null in cells that take no value)")
            }
            return try value(fromJSON: json)
        }
    }

    /// From an answers file: a string, number, bool, array of option labels, or array of rows.
    public func value(fromJSON json: JSONValue) throws -> AnswerValue {
        switch question.kind {
        case .multipleChoice:
            switch json {
            case .array(let items):
                var words: [String] = []
                for item in items {
                    guard let label = item.stringValue else {
                        throw refuse("expected option labels (strings), found \(item.kindDescription)")
                    }
                    words.append(label)
                }
                return try choices(labels: words)
            case .string(let label): return try choices(labels: [label])
            default: throw refuse("expected an array of option labels, found \(json.kindDescription)")
            }
        case .trueFalse:
            if let bool = json.boolValue { return .bool(bool) }
            if let string = json.stringValue { return try truth(string) }
            throw refuse("expected true or false, found \(json.kindDescription)")
        case .shortAnswer:
            guard let string = json.stringValue else { throw refuse("expected text, found \(json.kindDescription)") }
            return try text(string)
        case .numeric:
            if let number = json.numberValue { return try checkNumber(number) }
            if let string = json.stringValue { return try number(string) }
            throw refuse("expected a number, found \(json.kindDescription)")
        case .table(let rows, let columns, _):
            guard let rowValues = json.arrayValue else {
                throw refuse("expected an array of \(rows.count) rows, found \(json.kindDescription)")
            }
            guard rowValues.count == rows.count else {
                throw refuse("expected \(rows.count) rows, found \(rowValues.count)")
            }
            var table: [[String?]] = []
            for (r, rowValue) in rowValues.enumerated() {
                guard let cells = rowValue.arrayValue, cells.count == columns.count else {
                    throw refuse("row \(r) (\(rows[r])) must be an array of \(columns.count) cells")
                }
                table.append(try cells.enumerated().map { c, cell -> String? in
                    switch cell {
                    case .null: return nil
                    case .string(let string): return string
                    case .number(let number): return formatNumber(number)
                    case .bool(let bool): return bool ? "true" : "false"
                    default: throw refuse("cell [\(r), \(c)] (\(rows[r]) / \(columns[c])) must be text or a number, found \(cell.kindDescription)")
                    }
                })
            }
            return try checkTable(table)
        }
    }

    // MARK: - Per type

    /// Options from a typed line: the whole line as one label, or comma-separated parts, each a
    /// label, an option number from 1, or labels and numbers separated by spaces (`1 3`,
    /// `Humming Grinding`).
    func choices(fromLine line: String) throws -> AnswerValue {
        if let index = optionIndex(line) { return try chosen([index]) }
        var indices: [Int] = []
        for part in line.split(separator: ",") {
            let part = part.trimmingCharacters(in: .whitespaces)
            if !part.isEmpty { indices += try optionIndices(in: part) }
        }
        return try chosen(indices)
    }

    /// Options by label only, as an answers file gives them.
    func choices(labels: [String]) throws -> AnswerValue {
        try chosen(labels.map { label in
            guard let index = optionIndex(label) else { throw notAnOption(label) }
            return index
        })
    }

    /// The options of one comma-separated part of a line.
    private func optionIndices(in part: String) throws -> [Int] {
        if let index = optionIndex(part) { return [index] }
        let words = part.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.allSatisfy({ Int($0) != nil }) { return try words.map(optionNumber) }
        if let indices = segment(words[...]) { return indices }
        throw notAnOption(part)
    }

    /// Splits words into labels and numbers, longest label first (`Mechanical seal Casing drain`).
    private func segment(_ words: ArraySlice<String>) -> [Int]? {
        guard !words.isEmpty else { return [] }
        for length in stride(from: words.count, through: 1, by: -1) {
            let candidate = words.prefix(length).joined(separator: " ")
            guard let index = optionIndex(candidate) ?? (length == 1 ? try? optionNumber(candidate) : nil) else { continue }
            if let rest = segment(words.dropFirst(length)) { return [index] + rest }
        }
        return nil
    }

    /// An option by its label: exactly, then ignoring case.
    private func optionIndex(_ label: String) -> Int? {
        guard case .multipleChoice(let options, _) = question.kind else { return nil }
        let trimmed = label.trimmingCharacters(in: .whitespaces)
        return options.firstIndex(of: trimmed)
            ?? options.firstIndex { $0.caseInsensitiveCompare(trimmed) == .orderedSame }
    }

    /// An option by its number from 1.
    private func optionNumber(_ word: String) throws -> Int {
        guard case .multipleChoice(let options, _) = question.kind, let number = Int(word) else { throw notAnOption(word) }
        guard options.indices.contains(number - 1) else {
            throw refuse("there is no option \(number) (options are 1 to \(options.count))")
        }
        return number - 1
    }

    private func notAnOption(_ text: String) -> AnswerError {
        guard case .multipleChoice(let options, _) = question.kind else { return refuse("not multiple choice") }
        let list = options.enumerated().map { "\($0 + 1). \($1)" }.joined(separator: ", ")
        return refuse("\"\(text.trimmingCharacters(in: .whitespaces))\" is not one of the options (\(list))")
    }

    /// The chosen options, each once and in the template's order, within the question's limit.
    private func chosen(_ indices: [Int]) throws -> AnswerValue {
        guard case .multipleChoice(let options, let maxAnswers) = question.kind else { throw refuse("not multiple choice") }
        let chosen = Set(indices)
        if chosen.isEmpty { throw refuse("choose at least one option") }
        switch maxAnswers {
        case 1 where chosen.count > 1:
            throw refuse("only one answer may be chosen, got \(chosen.count)")
        case let limit where limit > 1 && chosen.count > limit:
            throw refuse("at most \(limit) answers may be chosen, got \(chosen.count)")
        default: break
        }
        return .choices(chosen.sorted().map { options[$0] })
    }

    public func truth(_ word: String) throws -> AnswerValue {
        switch word.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "t", "yes", "y", "1": return .bool(true)
        case "false", "f", "no", "n", "0": return .bool(false)
        default: throw refuse("expected true or false (or yes/no), got \"\(word)\"")
        }
    }

    public func text(_ string: String) throws -> AnswerValue {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { throw refuse("the answer is empty") }
        if trimmed.count > 10_000 { throw refuse("a short answer is at most 10,000 characters, got \(trimmed.count)") }
        return .text(trimmed)
    }

    public func number(_ string: String) throws -> AnswerValue {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        guard let number = Double(trimmed), number.isFinite else {
            if Self.isDecimalComma(trimmed) {
                throw refuse("\"\(trimmed)\" is not a number — use a dot: \(trimmed.replacingOccurrences(of: ",", with: "."))")
            }
            throw refuse("\"\(string)\" is not a number")
        }
        return try checkNumber(number)
    }

    /// `3,5` or `-0,25`: a decimal written with a comma, as many technicians' keyboards suggest.
    static func isDecimalComma(_ text: String) -> Bool {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let whole = parts.first, let fraction = parts.last else { return false }
        let digits = whole.first == "-" || whole.first == "+" ? whole.dropFirst() : whole[...]
        return !digits.isEmpty && !fraction.isEmpty && (digits + fraction).allSatisfy { $0.isASCII && $0.isNumber }
    }

    func checkNumber(_ number: Double) throws -> AnswerValue {
        guard case .numeric(let integer, let min, let max) = question.kind else { throw refuse("not numeric") }
        guard number.isFinite else { throw refuse("not a finite number") }
        if integer, number.rounded() != number { throw refuse("\(formatNumber(number)) is not a whole number") }
        if let min, number < min { throw refuse("\(formatNumber(number)) is below the minimum \(formatNumber(min))") }
        if let max, number > max { throw refuse("\(formatNumber(number)) is above the maximum \(formatNumber(max))") }
        return .number(number)
    }

    /// Every cell that takes a value has one; the cells that take no value are empty.
    public func checkTable(_ table: [[String?]]) throws -> AnswerValue {
        .table(try checkCells(table, complete: true).cells)
    }

    /// A table typed cell by cell and not finished: the cells typed so far (nil where none yet),
    /// kept as the answer's draft. Nil when no cell holds a value.
    public func draft(_ table: [[String?]]) throws -> [[String?]]? {
        let checked = try checkCells(table, complete: false)
        return checked.filled == 0 ? nil : checked.cells
    }

    /// One cell as typed: trimmed and not empty.
    public func cell(_ text: String, row: Int, column: Int) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw refuse("\(place(row, column)) needs a value") }
        return trimmed
    }

    /// `cell [1, 0] (Non-drive end / Temperature)`.
    public func place(_ row: Int, _ column: Int) -> String {
        guard case .table(let rows, let columns, _) = question.kind, rows.indices.contains(row), columns.indices.contains(column) else {
            return "cell [\(row), \(column)]"
        }
        return "cell [\(row), \(column)] (\(rows[row]) / \(columns[column]))"
    }

    /// The table's shape, no value in a no-value cell, and (when `complete`) a value in every other.
    private func checkCells(_ table: [[String?]], complete: Bool) throws -> (cells: [[String?]], filled: Int) {
        guard case .table(let rows, let columns, let noCells) = question.kind else { throw refuse("not a table") }
        guard table.count == rows.count else { throw refuse("expected \(rows.count) rows, found \(table.count)") }
        var result = table
        var filled = 0
        for r in rows.indices {
            guard table[r].count == columns.count else {
                throw refuse("row \(r) (\(rows[r])) must be an array of \(columns.count) cells")
            }
            for c in columns.indices {
                let text = table[r][c]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                if noCells.contains(Cell(row: r, column: c)) {
                    if !text.isEmpty { throw refuse("\(place(r, c)) takes no value, but got \"\(text)\"") }
                    result[r][c] = nil
                } else if text.isEmpty {
                    if complete { throw refuse("\(place(r, c)) needs a value") }
                    result[r][c] = nil
                } else {
                    result[r][c] = try cell(text, row: r, column: c)
                    filled += 1
                }
            }
        }
        return (result, filled)
    }
}
