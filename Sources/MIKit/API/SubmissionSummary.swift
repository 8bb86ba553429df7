import Foundation

/// One stored submission as the office lists it: who, which template, when, and how complete.
public struct SubmissionSummary: Codable, Sendable, Equatable {
    /// The form's UUID (lowercase).
    public var id: FormID
    public var templateID: String
    public var templateTitle: String
    public var templateVersion: Int
    /// The form's name as the technician gave it.
    public var formName: String
    /// The technician the form belongs to.
    public var user: String
    /// The technician's display name, when the form recorded it.
    public var userDisplayName: String?
    /// When the technician submitted the form.
    public var submittedAt: Date?
    /// When the server first stored it.
    public var receivedAt: Date
    /// The foreman who uploaded it.
    public var uploadedBy: String
    /// Questions with an answer or a comment.
    public var answered: Int
    /// Questions in the form's template.
    public var questions: Int
    /// Media files.
    public var media: Int
    /// Made by `mi simulate` (stored only by a server with `Server.AcceptSimulated`).
    public var simulated: Bool
    /// The scores the server computed from the answers on upload; absent when the form's
    /// template names no scorer.
    public var scores: [String: ScoreValue]?
    /// Where the office's review stands (absent from servers that keep no review states).
    public var reviewState: ReviewState?
    /// The stored version listed: the current one (absent from servers that keep no versions).
    public var version: Int?

    /// A summary as the server describes it.
    public init(id: FormID, templateID: String, templateTitle: String, templateVersion: Int, formName: String,
                user: String, userDisplayName: String?, submittedAt: Date?, receivedAt: Date, uploadedBy: String,
                answered: Int, questions: Int, media: Int, simulated: Bool = false,
                scores: [String: ScoreValue]? = nil, reviewState: ReviewState? = nil, version: Int? = nil) {
        self.id = id
        self.templateID = templateID
        self.templateTitle = templateTitle
        self.templateVersion = templateVersion
        self.formName = formName
        self.user = user
        self.userDisplayName = userDisplayName
        self.submittedAt = submittedAt
        self.receivedAt = receivedAt
        self.uploadedBy = uploadedBy
        self.answered = answered
        self.questions = questions
        self.media = media
        self.simulated = simulated
        self.scores = scores
        self.reviewState = reviewState
        self.version = version
    }

    /// The summary of `form` as stored under `receipt`.
    public init(form: Form, receipt: Receipt) {
        let summary = form.summary
        self.init(id: receipt.id, templateID: summary.templateID, templateTitle: summary.templateTitle,
                  templateVersion: summary.templateVersion, formName: receipt.formName, user: receipt.user,
                  userDisplayName: form.userDisplayName, submittedAt: form.submittedAt, receivedAt: receipt.receivedAt,
                  uploadedBy: receipt.uploadedBy, answered: summary.answered, questions: summary.questions,
                  media: summary.media, simulated: form.isSimulated, scores: form.scoreValues, version: receipt.storedVersion)
    }

    /// The technician as a reader knows them: "Ana Pérez (ana)", or the user name alone.
    public var technicianLabel: String { Form.technicianLabel(user: user, displayName: userDisplayName) }
}

/// One page of `GET /api/v1/submissions`.
public struct SubmissionPage: Codable, Sendable, Equatable {
    public var submissions: [SubmissionSummary]
    /// Pass as `cursor` for the next page; nil on the last page.
    public var nextCursor: String?
    /// Pass as `before` for the previous page; nil on the first page.
    public var previousCursor: String?

    /// A page as the server describes it.
    public init(submissions: [SubmissionSummary], nextCursor: String?, previousCursor: String? = nil) {
        self.submissions = submissions
        self.nextCursor = nextCursor
        self.previousCursor = previousCursor
    }
}
