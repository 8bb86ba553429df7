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
    /// The clock and zone `today` and `now` are read against and a date and time typed without
    /// an offset is placed in: the form's zone (`Form.temporalContext`).
    public let temporal: TemporalContext

    /// `path` names an answer inside a repeat (`trees[2]/cbh`) in place of the question's id.
    public init(question: Question, position: Int, count: Int, temporal: TemporalContext = .system(), path: String? = nil) {
        self.question = question
        self.label = "\(path ?? question.id) (\(position) of \(count))"
        self.temporal = temporal
    }

    public func refuse(_ rule: String) -> AnswerError { AnswerError(question: label, rule: rule) }

    /// Refuses anything given to a question that takes no answer (a note): a value, a comment
    /// or a file alike.
    public func checkTakesAnswer() throws {
        guard question.type.takesAnswer else {
            throw refuse("this is a \(question.typeDescription): it shows text and takes no answer, comment or media")
        }
    }

    /// From command-line words (`mi answer FORM QUESTION WORDS…`): the words joined by spaces
    /// and read as one typed line, so `mi answer` accepts exactly what `mi fill` accepts.
    public func value(fromWords words: [String]) throws -> AnswerValue {
        guard !words.isEmpty else { throw refuse("no value given") }
        return try value(fromLine: words.joined(separator: " "))
    }

    /// From one typed line, the single parser behind `mi fill` and `mi answer`, as the question's
    /// type reads it (`QuestionType.value(fromLine:rules:)`).
    public func value(fromLine line: String) throws -> AnswerValue {
        try question.type.value(fromLine: line, rules: self)
    }

    /// From an answers file: a string, number, bool, array of option labels, or array of rows.
    public func value(fromJSON json: JSONValue) throws -> AnswerValue {
        try question.type.value(fromJSON: json, rules: self)
    }

    // MARK: - Shared by the types

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

    /// `3,5` or `-0,25`: a decimal written with a comma, as many technicians' keyboards suggest.
    static func isDecimalComma(_ text: String) -> Bool {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let whole = parts.first, let fraction = parts.last else { return false }
        let digits = whole.first == "-" || whole.first == "+" ? whole.dropFirst() : whole[...]
        return !digits.isEmpty && !fraction.isEmpty && (digits + fraction).allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Every cell that takes a value has one; the cells that take no value are empty.
    public func checkTable(_ table: [[String?]]) throws -> AnswerValue {
        .cells(try checkCells(table, complete: true).cells)
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
        question.type.grid?.place(row, column) ?? "cell [\(row), \(column)]"
    }

    /// The table's shape, no value in a no-value cell, and (when `complete`) a value in every other.
    private func checkCells(_ table: [[String?]], complete: Bool) throws -> (cells: [[String?]], filled: Int) {
        guard let grid = question.type.grid else { throw refuse("not a table") }
        let (rows, columns, noCells) = (grid.rows, grid.columns, grid.noCells)
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
