import Foundation

/// How `mi fill` asks a question, as text: the lines shown before the answer and the prompt
/// the answer is typed after. The office editor's preview draws templates with the same code,
/// so what an administrator previews is what a technician will be asked.
public enum QuestionPrompt {
    /// The heading, the question's text and its numbered options (question `index` from 0).
    public static func lines(for question: Question, index: Int, count: Int) -> [String] {
        var lines = [
            "Question \(index + 1) of \(count) [\(DisplayText.escaped(question.id))] — \(question.typeDescription)",
            DisplayText.escaped(question.text, keepingNewlines: true),
        ]
        if case .multipleChoice(let options, _) = question.kind {
            for (number, option) in options.enumerated() { lines.append("  \(number + 1). \(DisplayText.escaped(option))") }
        }
        return lines
    }

    /// The prompt an answer is typed after (not for tables, which are asked cell by cell).
    public static func answerPrompt(for question: Question) -> String {
        let hint = switch question.kind {
        case .multipleChoice(_, let maxAnswers): maxAnswers == 1 ? "Option number " : "Option numbers, comma-separated "
        case .trueFalse: "true/false "
        case .numeric: "Number "
        case .shortAnswer, .table: ""
        }
        return hint + "> "
    }

    /// The prompt of one table cell, with the value typed before it in brackets; the labels
    /// and the value are shown with their control characters escaped (`DisplayText`).
    public static func cellPrompt(row: String, column: String, current: String? = nil) -> String {
        "  \(DisplayText.escaped(row)) · \(DisplayText.escaped(column))" + (current.map { " [\(DisplayText.escaped($0))]" } ?? "") + ": "
    }

    /// The cells of a table question that take a value, row by row: the order they are asked in.
    public static func valueCells(of question: Question) -> [Cell] {
        guard case .table(let rows, let columns, let noCells) = question.kind else { return [] }
        return rows.indices.flatMap { row in
            columns.indices.map { Cell(row: row, column: $0) }.filter { !noCells.contains($0) }
        }
    }

    /// Question `index` of `count` as a first fill asks it: its lines, then its prompt, or the
    /// prompt of every cell that takes a value.
    public static func preview(of question: Question, index: Int, count: Int) -> String {
        var lines = self.lines(for: question, index: index, count: count)
        if case .table(let rows, let columns, _) = question.kind {
            lines += valueCells(of: question).map { cellPrompt(row: rows[$0.row], column: columns[$0.column]) }
        } else {
            lines.append(answerPrompt(for: question))
        }
        return lines.joined(separator: "\n")
    }
}
