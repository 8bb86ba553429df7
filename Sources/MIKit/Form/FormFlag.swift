import Foundation

/// A question the office flagged when it sent the form back (`mi sync` brings it): the answer's
/// path, the office's note, who flagged it and when, the answer as it stood when the form came
/// back, and the technician's reply. Kept in form.json after submission, so the office sees
/// what was flagged and how it was answered.
public struct FormFlag: Codable, Sendable, Equatable {
    /// The answer's path (`nameplate`, `pumps[2]/amps`).
    public var question: String
    public var note: String
    public var by: String
    public var at: Date
    /// The answer's value, comment and media when the form came back.
    public var value: AnswerValue?
    public var comment: String?
    public var media: [String]
    /// The technician's reply (`mi answer FORM PATH --reply TEXT`).
    public var reply: String?

    public init(question: String, note: String, by: String, at: Date, returned answer: Answer, reply: String? = nil) {
        self.question = question
        self.note = note
        self.by = by
        self.at = at
        self.value = answer.value
        self.comment = answer.comment
        self.media = answer.media
        self.reply = reply
    }

    enum CodingKeys: String, CodingKey { case question, note, by, at, value, comment, media, reply }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        question = try container.decode(String.self, forKey: .question)
        note = try container.decode(String.self, forKey: .note)
        by = try container.decode(String.self, forKey: .by)
        at = try container.decode(Date.self, forKey: .at)
        value = try container.decodeIfPresent(AnswerValue.self, forKey: .value)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        media = try container.decodeIfPresent([String].self, forKey: .media) ?? []
        reply = try container.decodeIfPresent(String.self, forKey: .reply)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(question, forKey: .question)
        try container.encode(note, forKey: .note)
        try container.encode(by, forKey: .by)
        try container.encode(at, forKey: .at)
        try container.encodeIfPresent(value, forKey: .value)
        try container.encodeIfPresent(comment, forKey: .comment)
        if !media.isEmpty { try container.encode(media, forKey: .media) }
        try container.encodeIfPresent(reply, forKey: .reply)
    }

    /// The reply, when it says something.
    public var givenReply: String? {
        guard let reply, !reply.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return reply
    }
}

extension Form {
    /// The one rule of a flag: it is answered when the answer at its path changed since the
    /// form came back (its value, its comment, or its media), or the technician replied.
    public func isAnswered(_ flag: FormFlag) -> Bool {
        if flag.givenReply != nil { return true }
        let current = answer(for: flag.question)
        func comment(_ text: String?) -> String? {
            guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
            return text
        }
        return current.value != flag.value || comment(current.comment) != comment(flag.comment) || current.media != flag.media
    }

    /// The flags still waiting for a change or a reply, in the order the office gave them.
    public var unansweredFlags: [FormFlag] { flags.filter { !isAnswered($0) } }

    /// The first flag on `path`, if any.
    public func flag(at path: String) -> FormFlag? { flags.first { $0.question == path } }
}
