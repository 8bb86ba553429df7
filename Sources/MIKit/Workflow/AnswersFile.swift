import Foundation

/// Answers given as data: an answers file, or one update from the command line.
extension Workflow {
    /// The order an answers file's keys are applied in: by text, but a repeat's instances by
    /// number (`pumps[2]/…` before `pumps[10]/…`), so a file may add instances of an open repeat
    /// one after the other.
    static func answersFileOrder(_ a: String, _ b: String) -> Bool {
        func parts(_ key: String) -> [(String, Int)] {
            key.split(separator: "/", omittingEmptySubsequences: false).map { part in
                guard part.hasSuffix("]"), let open = part.firstIndex(of: "["),
                      let number = Int(part[part.index(after: open)..<part.index(before: part.endIndex)]) else { return (String(part), 0) }
                return (String(part[..<open]), number)
            }
        }
        let (left, right) = (parts(a), parts(b))
        for (x, y) in zip(left, right) where x != y {
            return x.0 != y.0 ? x.0 < y.0 : x.1 < y.1
        }
        return left.count != right.count ? left.count < right.count : a < b
    }

    /// Parses an answers file: `{question id: value}` or `{question id: {"value": …, "comment": …}}`.
    /// A value of `null` withdraws the answer (`AnswerUpdate.Input.clear`); a comment beside it
    /// still applies. An entry without `"value"` leaves the value as it is.
    public static func updates(fromAnswersFile data: Data) throws -> [AnswerUpdate] {
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch let error as DecodingError {
            throw AnswersFileError.notJSON(error.summary)
        }
        guard let object = json.objectValue else {
            throw AnswersFileError.notAnObject(found: json.kindDescription)
        }
        return try object.keys.sorted(by: Self.answersFileOrder).compactMap { key -> AnswerUpdate? in
            guard let value = object[key] else { return nil }
            if value == .null { return AnswerUpdate(question: key, value: .clear) }
            guard case .object(let parts) = value else { return AnswerUpdate(question: key, value: .json(value)) }
            let unknown = parts.keys.filter { !["value", "comment"].contains($0) }.sorted()
            guard unknown.isEmpty else {
                throw AnswerError(question: key, rule: "unknown field(s) \(unknown.joined(separator: ", ")) — give \"value\" and/or \"comment\"")
            }
            guard parts["value"] != nil || parts["comment"] != nil else {
                throw AnswerError(question: key, rule: "give a \"value\", a \"comment\", or both")
            }
            var comment: String?
            if let raw = parts["comment"], raw != .null {
                guard let text = raw.stringValue else {
                    throw AnswerError(question: key, rule: "the comment must be text, found \(raw.kindDescription)")
                }
                comment = text
            }
            let input: AnswerUpdate.Input? = parts["value"].map { $0 == .null ? .clear : .json($0) }
            return AnswerUpdate(question: key, value: input, comment: comment)
        }
    }
}

/// One question's new value and/or comment.
public struct AnswerUpdate: Sendable {
    public enum Input: Sendable {
        case words([String])
        case json(JSONValue)
        case validated(AnswerValue)
        /// The cells of a table typed so far; kept as the answer's draft.
        case draft([[String?]])
        /// Withdraws the answer: no value and no draft. The comment and the media stay (media are
        /// removed one by one with `mi detach`).
        case clear
    }
    public var question: String
    public var value: Input?
    /// nil leaves the comment as it is; an empty string removes it.
    public var comment: String?

    public init(question: String, value: Input?, comment: String? = nil) {
        self.question = question
        self.value = value
        self.comment = comment
    }
}

extension Answer {
    /// Applies one update after checking it: a value replaces the value and ends any draft, a
    /// draft keeps the value as it is, a clear removes both, a comment replaces the comment
    /// (empty removes it).
    mutating func apply(_ update: AnswerUpdate, rules: AnswerRules) throws {
        try rules.checkTakesAnswer()
        switch update.value {
        case .none: break
        case .words(let words): (value, draft) = (try rules.value(fromWords: words), nil)
        case .json(let json): (value, draft) = (try rules.value(fromJSON: json), nil)
        case .validated(let validated): (value, draft) = (validated, nil)
        case .draft(let cells): draft = try rules.draft(cells)
        case .clear: (value, draft) = (nil, nil)
        }
        // Every source of a value (words, JSON, `mi fill`'s validated ones, drafts) meets the text rule.
        let field = "answer to \(rules.question.id)"
        if update.value != nil, let value { try TextRules.check(value, field: field) }
        if case .draft = update.value, let draft { try TextRules.check(.cells(draft), field: field) }
        if let comment = update.comment {
            try TextRules.check(comment, field: "comment on \(rules.question.id)", allowNewlines: true)
            let trimmed = comment.trimmingCharacters(in: .whitespacesAndNewlines)
            self.comment = trimmed.isEmpty ? nil : trimmed
        }
    }
}

/// An answers file that cannot be used; nothing is saved.
public enum AnswersFileError: ClassifiedError, Sendable, Equatable {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not JSON.
    case notJSON(String)
    /// The file is JSON, but not an object of question id → value.
    case notAnObject(found: String)

    public var failureClass: FailureClass {
        if case .unreadable = self { return .notFound }
        return .badData
    }

    public var code: String {
        switch self {
        case .unreadable: return "answers-file-unreadable"
        case .notJSON: return "answers-file-not-json"
        case .notAnObject: return "answers-file-not-object"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read the answers file \(path): \(reason) — check the path; nothing was saved"
        case .notJSON(let summary):
            return "the answers file is not valid JSON: \(summary) — fix the file and run again; nothing was saved"
        case .notAnObject(let found):
            return "the answers file must be a JSON object of question id → value, found \(found); nothing was saved"
        }
    }
}
