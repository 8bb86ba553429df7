/// Aligned text tables. On a terminal a table fits the width without breaking an identifier —
/// a form or template name, an id, a date: every column not in `wrapping` is one. The free-text
/// columns (`wrapping`: answers, comments, titles) give way first, wrapping between words, a
/// word longer than its column shortened with an ellipsis in its middle; then the `droppable`
/// columns are left out, the first listed first; a row of identifiers that still does not fit
/// runs past the edge rather than split a name. Not on a terminal (`width` nil: piped or
/// redirected), every row is one line at its natural widths, so `mi list | grep NAME` finds it.
struct TableRenderer {
    var headers: [String]
    var rows: [[String]] = []
    /// Free-text columns, by index: they wrap and give way first.
    var wrapping: Set<Int> = []
    /// Columns left out, in this order, when the identifiers do not fit the terminal.
    var droppable: [Int] = []

    init(_ headers: [String], wrapping: Set<Int> = [], droppable: [Int] = []) {
        self.headers = headers
        self.wrapping = wrapping
        self.droppable = droppable
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The narrowest a free-text column becomes (or its natural width, when narrower).
    static let minimumFreeTextWidth = 10
    static let gap = 2

    /// The table's lines. `width` is the terminal's (nil when stdout is no terminal: rows are
    /// never wrapped then).
    func render(width: Int? = Terminal.tableWidth) -> String {
        let natural = headers.indices.map { column in
            ([headers[column]] + rows.map { $0[column] }).flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }
                .map(\.count).max() ?? 0
        }
        var shown = Array(headers.indices)
        var widths = natural
        if let width {
            var dropping = droppable.makeIterator()
            while true {
                let (fitted, fits) = Self.fit(shown.map { natural[$0] }, into: width - Self.gap * (shown.count - 1),
                                              freeText: Set(shown.indices.filter { wrapping.contains(shown[$0]) }),
                                              floors: shown.map { min(natural[$0], max(Self.minimumFreeTextWidth, headers[$0].count)) })
                for (place, column) in shown.enumerated() { widths[column] = fitted[place] }
                guard !fits, let next = dropping.next() else { break }
                shown.removeAll { $0 == next }
            }
        }
        var lines: [String] = []
        func emit(_ cells: [String]) {
            let cellLines = shown.map { column -> [String] in
                let text = cells[column]
                guard width != nil, wrapping.contains(column) else { return text.components(separatedBy: "\n") }
                return TextWrap.lines(text, width: widths[column]).map { TextWrap.middleEllipsis($0, width: widths[column]) }
            }
            let height = cellLines.map(\.count).max() ?? 1
            for line in 0..<height {
                let parts = shown.indices.map { place -> String in
                    let text = line < cellLines[place].count ? cellLines[place][line] : ""
                    return place == shown.count - 1 ? text : text.padding(toLength: widths[shown[place]], withPad: " ", startingAt: 0)
                }
                lines.append(parts.joined(separator: String(repeating: " ", count: Self.gap)).trailingSpacesRemoved)
            }
        }
        emit(headers)
        lines.append(shown.map { String(repeating: "─", count: widths[$0]) }.joined(separator: String(repeating: " ", count: Self.gap)))
        rows.forEach(emit)
        return lines.joined(separator: "\n")
    }

    /// Narrows the free-text columns of `natural`, the widest first, down to their `floors`,
    /// until the sum is at most `available`. Other columns keep their width. Returns the widths
    /// and whether they fit.
    static func fit(_ natural: [Int], into available: Int, freeText: Set<Int>, floors: [Int]) -> (widths: [Int], fits: Bool) {
        var widths = natural
        var excess = widths.reduce(0, +) - available
        while excess > 0 {
            guard let widest = freeText.filter({ widths[$0] > floors[$0] }).max(by: { (widths[$0], $1) < (widths[$1], $0) })
            else { break }
            widths[widest] -= 1
            excess -= 1
        }
        return (widths, excess <= 0)
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
