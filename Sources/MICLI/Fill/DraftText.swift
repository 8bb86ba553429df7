import MIKit

extension ReviewText {
    /// A table still being typed, one line per row: `…` in the cells still empty, `■` in the
    /// cells that take no value.
    static func displayDraft(_ cells: [[String?]], question: Question) -> String {
        guard let grid = question.type.grid else { return "" }
        let (rows, columns, noCells) = (grid.rows, grid.columns, grid.noCells)
        return rows.indices.map { r in
            "\(rows[r]): " + columns.indices.map { c in
                let text = noCells.contains(Cell(row: r, column: c)) ? "■" : (cells[safe: r]?[safe: c] ?? nil) ?? "…"
                return "\(columns[c]) \(text)"
            }.joined(separator: ", ")
        }.joined(separator: "\n")
    }

    /// The review's ANSWER cell for a question whose table is a draft.
    static func displayDraftAnswer(_ answer: Answer, question: Question) -> String? {
        guard let draft = answer.draft else { return nil }
        return "(draft, \(answer.draftCellCount) cells typed — not done)\n" + displayDraft(draft, question: question)
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
