/// "did you mean …?": the names closest to a mistyped one, by edit distance.
public enum Suggestions {
    /// The Levenshtein distance between `a` and `b`, ignoring case: how many characters must be
    /// inserted, deleted or replaced to turn one into the other.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidates whose `name` is within a few edits of `typed` (a third of its length, at
    /// least 2), the closest first, at most `limit` of them.
    public static func closest<Candidate>(to typed: String, among candidates: [Candidate], limit: Int = 3,
                                          name: (Candidate) -> String) -> [Candidate] {
        let allowed = max(2, typed.count / 3)
        return candidates
            .map { (candidate: $0, name: name($0), distance: distance(typed, name($0))) }
            .filter { $0.distance <= allowed }
            .sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
            .prefix(limit)
            .map(\.candidate)
    }

    /// `closest` among names.
    public static func closest(to typed: String, among names: [String], limit: Int = 3) -> [String] {
        closest(to: typed, among: Array(Set(names)), limit: limit) { $0 }
    }

    /// `did you mean 'a'?`, `did you mean 'a' or 'b'?`; nil when there is no close name. Each
    /// name is quoted as a shell word, so it can be pasted.
    public static func didYouMean(_ names: [String]) -> String? {
        guard let last = names.last else { return nil }
        let quoted = names.map { ShellWord.quoted($0, always: true) }
        let list = names.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + ShellWord.quoted(last, always: true)
        return "did you mean \(list)?"
    }
}
