/// Breaking text into lines of a given width between words; a word longer than a line is cut.
enum TextWrap {
    /// The lines of `text` (its own line breaks kept) at most `width` characters long.
    static func lines(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
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
}
