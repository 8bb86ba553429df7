import Foundation

/// Where the office's review of a stored submission stands.
///
/// Every submission starts `received`. Foremen move it to `hasIssues` (a send-back does so too),
/// `approved` or `rejected`; a version that a newer one superseded is `edited`, and only the
/// server sets that.
public enum ReviewState: String, Codable, Sendable, CaseIterable, Equatable {
    case received, hasIssues, approved, rejected, edited

    /// The states a foreman may set with `PATCH /api/v1/submissions/{id}` or in the office.
    public static let settable: [ReviewState] = [.received, .hasIssues, .approved, .rejected]

    /// The office's words for the state.
    public var label: String {
        switch self {
        case .received: "Received"
        case .hasIssues: "Has issues"
        case .approved: "Approved"
        case .rejected: "Rejected"
        case .edited: "Edited"
        }
    }
}

/// One question of a submission that the office sends back: its answer path
/// (`nameplate`, `pumps[2]/amps`) and what is wrong with it.
public struct ReviewFlag: Codable, Sendable, Equatable, Hashable {
    public var question: String
    public var note: String

    public init(question: String, note: String) {
        self.question = question
        self.note = note
    }
}

/// The body of `PATCH /api/v1/submissions/{id}`.
public struct ReviewChange: Codable, Sendable, Equatable {
    public var reviewState: ReviewState
    public var note: String?

    public init(reviewState: ReviewState, note: String? = nil) {
        self.reviewState = reviewState
        self.note = note
    }
}

/// The body of `POST /api/v1/submissions/{id}/send-back`.
public struct SendBackRequest: Codable, Sendable, Equatable {
    public var note: String?
    public var flags: [ReviewFlag]

    public init(note: String? = nil, flags: [ReviewFlag]) {
        self.note = note
        self.flags = flags
    }
}

/// One change of a submission's review state, as the server keeps it: who, when, why.
public struct ReviewEvent: Codable, Sendable, Equatable {
    public var reviewState: ReviewState
    public var by: String
    public var at: Date
    public var note: String?

    public init(reviewState: ReviewState, by: String, at: Date, note: String? = nil) {
        self.reviewState = reviewState
        self.by = by
        self.at = at
        self.note = note
    }
}

/// A submission the office sent back, as `GET /api/v1/returned` lists it for its technician:
/// `mi sync` brings the stored version `version` of form `id` back with these flags.
public struct SentBackForm: Codable, Sendable, Equatable {
    public var id: FormID
    public var version: Int
    public var formName: String
    public var templateID: String
    public var by: String
    public var at: Date
    public var note: String?
    public var flags: [ReviewFlag]

    public init(id: FormID, version: Int, formName: String, templateID: String, by: String, at: Date,
                note: String?, flags: [ReviewFlag]) {
        self.id = id
        self.version = version
        self.formName = formName
        self.templateID = templateID
        self.by = by
        self.at = at
        self.note = note
        self.flags = flags
    }
}

/// A stored submission's review as `GET /api/v1/submissions/{id}/review` and
/// `PATCH /api/v1/submissions/{id}` return it: the current state, every change oldest first,
/// and the open send-back's flags (empty when none is open).
public struct SubmissionReview: Codable, Sendable, Equatable {
    /// The open send-back: who sent the form back, when, and the overall note.
    public struct SendBack: Codable, Sendable, Equatable {
        public var version: Int
        public var by: String
        public var at: Date
        public var note: String?

        public init(version: Int, by: String, at: Date, note: String?) {
            self.version = version
            self.by = by
            self.at = at
            self.note = note
        }
    }

    public var id: FormID
    public var reviewState: ReviewState
    public var history: [ReviewEvent]
    public var flags: [ReviewFlag]
    public var sendBack: SendBack?

    public init(id: FormID, reviewState: ReviewState, history: [ReviewEvent], flags: [ReviewFlag], sendBack: SendBack?) {
        self.id = id
        self.reviewState = reviewState
        self.history = history
        self.flags = flags
        self.sendBack = sendBack
    }
}
