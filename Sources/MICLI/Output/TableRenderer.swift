/// Aligned text tables; long cells wrap within their column so rows stay readable.
struct TableRenderer {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns that may wrap, by index; others keep their full width.
    var wrapping: Set<Int> = []

    init(_ headers: [String], wrapping: Set<Int> = []) {
        self.headers = headers
        self.wrapping = wrapping
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render(width: Int = Terminal.width) -> String {
        let count = headers.count
        var widths = (0..<count).map { column in
            ([headers[column]] + rows.map { $0[column] }).flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }
                .map(\.count).max() ?? 0
        }
        let gap = 2
        let fixed = (0..<count).filter { !wrapping.contains($0) }.reduce(0) { $0 + widths[$1] } + gap * (count - 1)
        let flexible = wrapping.sorted()
        if !flexible.isEmpty {
            let available = max(width - fixed, 12 * flexible.count)
            let share = available / flexible.count
            for column in flexible { widths[column] = min(widths[column], max(share, 12)) }
        }
        var lines: [String] = []
        func emit(_ cells: [String]) {
            let wrapped = (0..<count).map { wrap(cells[$0], to: widths[$0]) }
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

    private func wrap(_ text: String, to width: Int) -> [String] {
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = Substring(word)
                while word.count > width {
                    if !line.isEmpty { result.append(line); line = "" }
                    result.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                if line.isEmpty { line = String(word) }
                else if line.count + 1 + word.count <= width { line += " " + word }
                else { result.append(line); line = String(word) }
            }
            result.append(line)
        }
        return result.isEmpty ? [""] : result
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
