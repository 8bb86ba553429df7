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

    /// From command-line words: option labels or numbers, true/false, text, a number, or a
    /// table as one JSON array of rows.
    public func value(fromWords words: [String]) throws -> AnswerValue {
        guard !words.isEmpty else { throw refuse("no value given") }
        switch question.kind {
        case .multipleChoice:
            return try choices(words)
        case .trueFalse:
            guard words.count == 1 else { throw refuse("expected one of true or false, got \(words.count) values") }
            return try truth(words[0])
        case .shortAnswer:
            return try text(words.joined(separator: " "))
        case .numeric:
            guard words.count == 1 else { throw refuse("expected one number, got \(words.count) values") }
            return try number(words[0])
        case .table:
            guard words.count == 1, let json = try? JSONValue.parse(Data(words[0].utf8)) else {
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
                return try choices(words, numbersAllowed: false)
            case .string(let label): return try choices([label], numbersAllowed: false)
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
        case .table(let rows, let columns, let noCells):
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
            return try checkTable(table, rows: rows, columns: columns, noCells: noCells)
        }
    }

    // MARK: - Per type

    /// Options by label (exact, then case-insensitive) or, when allowed, by number from 1.
    public func choices(_ words: [String], numbersAllowed: Bool = true) throws -> AnswerValue {
        guard case .multipleChoice(let options, let maxAnswers) = question.kind else { throw refuse("not multiple choice") }
        var chosen: Set<Int> = []
        for word in words {
            let trimmed = word.trimmingCharacters(in: .whitespaces)
            if let index = options.firstIndex(of: trimmed)
                ?? options.firstIndex(where: { $0.caseInsensitiveCompare(trimmed) == .orderedSame }) {
                chosen.insert(index)
            } else if numbersAllowed, let number = Int(trimmed) {
                guard options.indices.contains(number - 1) else {
                    throw refuse("there is no option \(number) (options are 1 to \(options.count))")
                }
                chosen.insert(number - 1)
            } else {
                let list = options.enumerated().map { "\($0 + 1). \($1)" }.joined(separator: ", ")
                throw refuse("\"\(trimmed)\" is not one of the options (\(list))")
            }
        }
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
            throw refuse("\"\(string)\" is not a number")
        }
        return try checkNumber(number)
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
    public func checkTable(_ table: [[String?]], rows: [String], columns: [String], noCells: Set<Cell>) throws -> AnswerValue {
        var result = table
        for r in rows.indices {
            for c in columns.indices {
                let cell = table[r][c]?.trimmingCharacters(in: .whitespacesAndNewlines)
                let place = "cell [\(r), \(c)] (\(rows[r]) / \(columns[c]))"
                if noCells.contains(Cell(row: r, column: c)) {
                    if let cell, !cell.isEmpty { throw refuse("\(place) takes no value, but got \"\(cell)\"") }
                    result[r][c] = nil
                } else {
                    guard let cell, !cell.isEmpty else { throw refuse("\(place) needs a value") }
                    result[r][c] = cell
                }
            }
        }
        return .table(result)
    }
}
