import Foundation
import MIKit

/// A form as `--json` names it in every listing (`mi list`, `mi queue`, `mi new`): the same
/// keys with the same types everywhere, and the same keys at the head of `mi review --json`
/// (which adds the `questions` array with each answer). Counts end in `Count`, so no key is a
/// number in one output and an array in another.
struct FormSummaryJSON: Codable, Equatable {
    var id: String
    var name: String
    /// The technician the form belongs to.
    var user: String
    /// `incomplete` or `completed`.
    var status: String
    var template: String
    var templateVersion: Int
    /// The template's title.
    var title: String
    var createdAt: Date
    var updatedAt: Date
    var submittedAt: Date?
    var returnedAt: Date?
    /// When an incomplete form is deleted (absent for a completed one).
    var expiresAt: Date?
    var daysLeft: Int?
    /// Questions with an answer or a comment.
    var answeredCount: Int
    var questionCount: Int
    var mediaCount: Int

    /// A listed form: its location decides its user, name and status.
    init(_ form: ListedForm, expiry: Expiry, now: Date) {
        self.init(form.summary, expiry: expiry, now: now)
        user = form.location.user
        name = form.location.name
        status = form.location.area.status.rawValue
    }

    /// `expiry` nil leaves out `expiresAt` and `daysLeft` (a form shown whole, as `mi review`).
    init(_ summary: FormSummary, expiry: Expiry? = nil, now: Date = Date()) {
        let incomplete = summary.status == .incomplete
        id = summary.id.description
        name = summary.name
        user = summary.user
        status = summary.status.rawValue
        template = summary.templateID
        templateVersion = summary.templateVersion
        title = summary.templateTitle
        createdAt = summary.createdAt
        updatedAt = summary.updatedAt
        submittedAt = summary.submittedAt
        returnedAt = summary.returnedAt
        expiresAt = incomplete ? expiry?.date(of: summary) : nil
        daysLeft = incomplete ? expiry?.daysLeft(of: summary, now: now) : nil
        answeredCount = summary.answered
        questionCount = summary.questions
        mediaCount = summary.media
    }
}
