/// Breaking text into lines of a given width between words, never inside a word: a word longer
/// than a line stands alone on its line (a path or a name stays whole, to be copied). A command
/// to paste counts as one word — a `backquoted` one, a 'quoted' name, and the `mi …` that ends
/// a line after a colon (`Fill it with: mi fill 'Pump P-101 north'`) — because a line break
/// inside it would be pasted too.
enum TextWrap {
    /// The lines of `text` (its own line breaks kept), each at most `width` characters long
    /// unless it is one word longer than that.
    static func lines(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in unbreakable(paragraph.split(separator: " ", omittingEmptySubsequences: true).map(String.init)) {
                if line.isEmpty { line = String(word) }
                else if line.count + 1 + word.count <= width { line += " " + word }
                else { result.append(line); line = String(word) }
            }
            result.append(line)
        }
        return result.isEmpty ? [""] : result
    }

    /// `words` with the words of each command to paste joined into one: from a word starting
    /// with a backquote or a single quote to the word that closes it, and from an `mi` after a
    /// word ending with a colon to the end.
    static func unbreakable(_ words: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            var end = index
            if word == "mi", let previous = result.last, previous.hasSuffix(":") {
                end = words.count - 1
            } else if let mark = opening(word), !closes(word, mark, alone: true),
                      let close = words[(index + 1)...].firstIndex(where: { closes($0, mark, alone: false) }) {
                end = close
            }
            result.append(words[index...end].joined(separator: " "))
            index = end + 1
        }
        return result
    }

    /// The quote a word opens (after an opening parenthesis or double quote), if any.
    private static func opening(_ word: String) -> Character? {
        let start = word.drop { $0 == "(" || $0 == "\"" }.first
        return start == "`" || start == "'" ? start : nil
    }

    /// Whether `word` ends with `mark` (before closing punctuation); a word standing `alone`
    /// must also hold another one to open it.
    private static func closes(_ word: String, _ mark: Character, alone: Bool) -> Bool {
        let trimmed = word.reversed().drop { ")?.,;:!\"".contains($0) }
        guard trimmed.first == mark else { return false }
        return !alone || trimmed.filter { $0 == mark }.count >= 2
    }

    /// Each line of `text` that is longer than `width` broken between words, its continuation
    /// lines indented like the line itself (so a hint under a list item stays under it).
    static func fitting(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.count > width else { return String(line) }
            let indent = String(line.prefix { $0 == " " })
            let body = lines(String(line.dropFirst(indent.count)), width: width - indent.count)
            return body.map { indent + $0 }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `text` shortened to `width` characters by an ellipsis in its middle, so both its start and
    /// its end stay readable (`pump-insp…0261126-0506`); as it is when it fits.
    static func middleEllipsis(_ text: String, width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(max(width, 0))) }
        let kept = width - 1
        let head = (kept + 1) / 2
        return String(text.prefix(head)) + "…" + String(text.suffix(kept - head))
    }
}
