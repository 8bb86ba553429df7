import Foundation
import Logging
import MIKit

/// What the text search of the submissions looks in, and how a search becomes a full-text match.
enum SubmissionSearchText {
    /// The form name, every answer's text (each repeat's once per instance), number, choices and table cells, every comment and
    /// the foreman's comments, one per line.
    static func text(of form: Form) -> String {
        var lines = [form.name]
        for slot in form.slots {
            guard let answer = form.answers[slot.key] else { continue }
            if let value = answer.value, let text = slot.question.type.searchText(value) { lines.append(text) }
            if let comment = answer.comment { lines.append(comment) }
        }
        lines += form.foremanComments.map(\.text)
        return lines.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// `text` as PostgreSQL's search keeps it: lowercase, without diacritics, every run of
    /// other characters than letters and digits one space. SQLite's FTS5 tokenizer
    /// (`unicode61 remove_diacritics 2`) does the same to the text it indexes.
    static func folded(_ text: String) -> String {
        let plain = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        return plain.unicodeScalars.split { !CharacterSet.alphanumerics.contains($0) }
            .map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
    }

    /// A PostgreSQL `tsquery` (configuration `simple`) in which every word must begin a word of
    /// the folded text: `pump:* & val:*`. Words are folded first, so nothing of the query syntax
    /// survives in them.
    static func prefixQuery(_ words: [String]) -> String {
        words.flatMap { folded($0).split(separator: " ") }.map { "\($0):*" }.joined(separator: " & ")
    }

    /// An FTS5 query in which every word must begin a word of the text: `"pump"* AND "vál"*`.
    static func match(_ words: [String]) -> String {
        words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " AND ")
    }
}

/// Indexes the submissions stored before summaries were kept, from their form.json.
enum SubmissionBackfill {
    /// Summarizes every unsummarized submission; a form.json that cannot be read is logged and
    /// left for the next start. Returns how many were summarized.
    @discardableResult
    static func run(repository: any SubmissionRepository, layout: DataLayout, logger: Logger) async throws -> Int {
        var done = 0
        for (id, version) in try await repository.unsummarized() {
            let file = layout.submission(id, version: version).appendingPathComponent(UploadPart.formFilename)
            do {
                let form = try await Blocking.run { try FormFile.decode(try Data(contentsOf: file)) }
                try await repository.summarize(id: id, form: form)
                done += 1
            } catch {
                logger.warning("submission not indexed: its form.json cannot be read", metadata: [
                    "id": .string(id.description), "file": .string(file.path), "error": .string("\(error)"),
                ])
            }
        }
        if done > 0 { logger.info("submissions indexed", metadata: ["count": .stringConvertible(done)]) }
        return done
    }
}
