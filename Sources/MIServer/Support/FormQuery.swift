import Foundation
import Hummingbird

/// A URL's query as HTML forms write it (`application/x-www-form-urlencoded`): `+` is a space and
/// `%2B` a plus, which Hummingbird's `queryParameters` does not tell apart.
enum FormQuery {
    /// `text` with every character but letters, digits and `-._~` (and those in `keeping`)
    /// percent-encoded: safe as a query value or a path segment.
    static func encoded(_ text: String, keeping: String = "") -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~" + keeping)
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Name and value of each `name=value` pair, in order; a pair that does not decode is dropped.
    static func parameters(_ query: String?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            return (name, value)
        }
    }
}

extension Parameters {
    /// A path parameter percent-decoded: the router hands a segment on as it was sent
    /// (`Qid1%281%29.jpg` is `Qid1(1).jpg`).
    func decoded(_ name: String) throws -> String {
        let segment = try require(name)
        return segment.removingPercentEncoding ?? segment
    }
}
