/// Breaking text into lines of a given width between words, never inside a word: a word longer
/// than a line stands alone on its line (a path or a name stays whole, to be copied).
enum TextWrap {
    /// The lines of `text` (its own line breaks kept), each at most `width` characters long
    /// unless it is one word longer than that.
    static func lines(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                if line.isEmpty { line = String(word) }
                else if line.count + 1 + word.count <= width { line += " " + word }
                else { result.append(line); line = String(word) }
            }
            result.append(line)
        }
        return result.isEmpty ? [""] : result
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
