import Foundation
import MIKit

/// A submission's scores as a repository keeps them: one JSON object (key → number or text)
/// in a text column, so every repository (SQLite, PostgreSQL) stores the same bytes.
enum StoredScores {
    /// The column's text for `scores`; nil (SQL NULL) when the template names no scorer.
    static func encode(_ scores: [String: ScoreValue]?) throws -> String? {
        guard let scores else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(scores), as: UTF8.self)
    }

    /// The scores stored in `text`; nil for NULL, and for text that is not such an object
    /// (never written by a server; the next summary rewrites it).
    static func decode(_ text: String?) -> [String: ScoreValue]? {
        guard let text else { return nil }
        return try? JSONDecoder().decode([String: ScoreValue].self, from: Data(text.utf8))
    }
}
