import Foundation

/// How `mi fill` asks a question, as text: the lines shown before the answer and the prompt
/// the answer is typed after. The office editor's preview draws templates with the same code,
/// so what an administrator previews is what a technician will be asked.
public enum QuestionPrompt {
    /// The heading, the question's text and its numbered options (question `index` from 0).
    public static func lines(for question: Question, index: Int, count: Int) -> [String] {
        let lines = [
            "Question \(index + 1) of \(count) [\(DisplayText.escaped(question.id))] — \(question.typeDescription)",
            DisplayText.escaped(question.text, keepingNewlines: true),
        ]
        return lines + question.type.promptLines
    }

    /// The prompt an answer is typed after (not for a grid, which is asked cell by cell).
    public static func answerPrompt(for question: Question) -> String {
        question.type.answerHint + "> "
    }

    /// The prompt of one table cell, with the value typed before it in brackets; the labels
    /// and the value are shown with their control characters escaped (`DisplayText`).
    public static func cellPrompt(row: String, column: String, current: String? = nil) -> String {
        "  \(DisplayText.escaped(row)) · \(DisplayText.escaped(column))" + (current.map { " [\(DisplayText.escaped($0))]" } ?? "") + ": "
    }

    /// The cells of a table question that take a value, row by row: the order they are asked in.
    public static func valueCells(of question: Question) -> [Cell] {
        question.type.grid?.valueCells ?? []
    }

    /// Question `index` of `count` as a first fill asks it: its lines, then its prompt, or the
    /// prompt of every cell that takes a value (a note has none: it is only shown).
    public static func preview(of question: Question, index: Int, count: Int) -> String {
        var lines = self.lines(for: question, index: index, count: count)
        if let grid = question.type.grid {
            lines += grid.valueCells.map { cellPrompt(row: grid.rows[$0.row], column: grid.columns[$0.column]) }
        } else if question.type.takesAnswer {
            lines.append(answerPrompt(for: question))
        }
        return lines.joined(separator: "\n")
    }
}
