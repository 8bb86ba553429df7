/// Aligned text tables that fit the terminal: when the natural widths are too wide, the
/// `wrapping` columns give way first, then the widest columns, and their cells wrap between
/// words (a word longer than its column is cut).
struct TableRenderer {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns that give way first, by index (free text: answers, comments).
    var wrapping: Set<Int> = []

    init(_ headers: [String], wrapping: Set<Int> = []) {
        self.headers = headers
        self.wrapping = wrapping
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The narrowest a column becomes before the next one gives way.
    static let minimumWidth = 4

    func render(width: Int = Terminal.width) -> String {
        let count = headers.count
        let gap = 2
        var widths = (0..<count).map { column in
            ([headers[column]] + rows.map { $0[column] }).flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }
                .map(\.count).max() ?? 0
        }
        widths = Self.fit(widths, into: width - gap * (count - 1), preferring: wrapping)
        var lines: [String] = []
        func emit(_ cells: [String]) {
            let wrapped = (0..<count).map { TextWrap.lines(cells[$0], width: widths[$0]) }
            let height = wrapped.map(\.count).max() ?? 1
            for line in 0..<height {
                let parts = (0..<count).map { column -> String in
                    let text = line < wrapped[column].count ? wrapped[column][line] : ""
                    return column == count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }
                lines.append(parts.joined(separator: String(repeating: " ", count: gap)).trailingSpacesRemoved)
            }
        }
        emit(headers)
        lines.append((0..<count).map { String(repeating: "─", count: widths[$0]) }.joined(separator: "  "))
        rows.forEach(emit)
        return lines.joined(separator: "\n")
    }

    /// Narrows `widths` until their sum is at most `available`: the widest of the preferred
    /// columns first, down to `minimumWidth`, then the widest of all, down to one character.
    static func fit(_ natural: [Int], into available: Int, preferring preferred: Set<Int>) -> [Int] {
        var widths = natural
        var excess = widths.reduce(0, +) - max(available, widths.count)
        for (candidates, floor) in [(preferred, minimumWidth), (Set(widths.indices), minimumWidth), (Set(widths.indices), 1)] {
            while excess > 0 {
                guard let widest = candidates.filter({ widths[$0] > floor }).max(by: { (widths[$0], $1) < (widths[$1], $0) })
                else { break }
                widths[widest] -= 1
                excess -= 1
            }
        }
        return widths
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
