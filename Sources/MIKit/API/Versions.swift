import Foundation

/// `GET /api/v1/submissions/{id}/versions`: every stored version of a form, oldest first; the
/// last is the current one, the one listed, counted and exported by default.
public struct SubmissionVersions: Codable, Sendable, Equatable {
    public var id: FormID
    public var current: Int
    public var versions: [Receipt]

    public init(id: FormID, current: Int, versions: [Receipt]) {
        self.id = id
        self.current = current
        self.versions = versions
    }
}

/// One difference between two stored versions of a form, on one question (its answer path,
/// `nameplate` or `pumps[2]/amps`) or, for a foreman's general comment, on the form itself.
public struct FormChange: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The answer's value changed (`before`/`after`: the values as shown, nil when unanswered).
        case answer
        /// The answer's comment changed.
        case comment
        /// A media file the later version has and the earlier has not (by SHA-256).
        case mediaAdded
        /// A media file the earlier version had and the later has not (by SHA-256).
        case mediaRemoved
        /// The office flagged the question (`after`: the flag's note).
        case flag
        /// The technician replied to the flag (`after`: the reply).
        case reply
        /// A foreman's general comment on the form (no question).
        case foremanComment
    }

    public var kind: Kind
    /// The answer path; nil for a foreman's general comment.
    public var question: String?
    public var before: String?
    public var after: String?
    /// For media: the file's name and SHA-256.
    public var media: String?
    public var sha256: String?

    public init(kind: Kind, question: String?, before: String? = nil, after: String? = nil, media: String? = nil,
                sha256: String? = nil) {
        self.kind = kind
        self.question = question
        self.before = before
        self.after = after
        self.media = media
        self.sha256 = sha256
    }

    /// The office's words for the kind.
    public var label: String {
        switch kind {
        case .answer: "Answer changed"
        case .comment: "Comment changed"
        case .mediaAdded: "Media added"
        case .mediaRemoved: "Media removed"
        case .flag: "Flagged by the office"
        case .reply: "Technician's reply"
        case .foremanComment: "Foreman's comment"
        }
    }
}

/// `GET /api/v1/submissions/{id}/diff?from=N&to=M`: what changed from version `from` to `to`.
public struct SubmissionDiff: Codable, Sendable, Equatable {
    public var id: FormID
    public var from: Int
    public var to: Int
    public var changes: [FormChange]

    public init(id: FormID, from: Int, to: Int, changes: [FormChange]) {
        self.id = id
        self.from = from
        self.to = to
        self.changes = changes
    }
}
