import Foundation

/// A workflow step refused: the form is in the wrong state, the request is empty or names
/// something the form does not have. Each message says why and what to do.
public enum WorkflowError: ClassifiedError, Sendable, Equatable {
    /// What was asked of a form that is in the wrong area for it.
    public enum Operation: String, Sendable {
        case changed, filled, deleted, reassigned, commented = "commented on", returned = "sent back", uploaded
    }

    /// The form is submitted (in `CompletedMIs`) and the operation needs an incomplete one.
    case formSubmitted(form: String, operation: Operation)
    /// The form is incomplete and the operation needs a submitted one.
    case formNotSubmitted(form: String, operation: Operation)
    /// The user already has a form of that name.
    case nameTaken(String)
    /// Questions without an answer or a comment stop a submission (`id (number)` each), and so
    /// do tables still being typed (drafts), named apart because they may have a comment.
    case openQuestions(form: String, questions: [String], drafts: [DraftTable] = [])
    /// A foreman's comment or a send-back note is empty.
    case emptyText(what: String, hint: String)
    /// The form already belongs to the technician it is being assigned to.
    case alreadyAssigned(form: String, user: String)
    /// The form lists no such media file.
    case noSuchMedia(form: String, media: String, available: [String])
    /// A media file form.json lists is not on disk.
    case mediaMissing(form: String, media: String)
    /// A file to attach is not a known photo, video or audio type.
    case notMedia(file: String, known: [String])
    /// A file to attach does not exist.
    case noSuchFile(String)
    /// The form's template has a consent text the respondent has not accepted (or accepted
    /// another text): no answer and no submission until they do.
    case consentRequired(form: String, template: String)
    /// The template is answered once per user and `user` already has a form of it.
    case oncePerUser(template: String, user: String, existing: ExistingForm)
    /// `--lang` names no language of the template.
    case noSuchLanguage(template: String, requested: String, languages: [String])
    /// Flags of the office (`FormFlag`) neither answered nor replied to stop a submission.
    case unansweredFlags(form: String, flags: [ReviewFlag])
    /// A reply names a question the office did not flag (`flagged`: the paths it did).
    case noSuchFlag(form: String, question: String, flagged: [String])

    /// A table that keeps a form from being submitted because it is still a draft.
    public struct DraftTable: Sendable, Equatable {
        /// `id (number)`.
        public var question: String
        public var typed: Int
        public var cells: Int

        public init(question: String, typed: Int, cells: Int) {
            self.question = question
            self.typed = typed
            self.cells = cells
        }
    }

    public var failureClass: FailureClass {
        switch self {
        case .formSubmitted, .formNotSubmitted, .nameTaken, .openQuestions, .emptyText, .alreadyAssigned, .notMedia,
             .consentRequired, .oncePerUser, .unansweredFlags:
            return .badData
        case .noSuchMedia, .mediaMissing, .noSuchFile, .noSuchFlag:
            return .notFound
        case .noSuchLanguage:
            return .usage
        }
    }

    public var code: String {
        switch self {
        case .formSubmitted: return "form-submitted"
        case .formNotSubmitted: return "form-not-submitted"
        case .nameTaken: return "name-taken"
        case .openQuestions: return "open-questions"
        case .emptyText: return "empty-text"
        case .alreadyAssigned: return "already-assigned"
        case .noSuchMedia: return "no-such-media"
        case .mediaMissing: return "media-missing"
        case .notMedia: return "not-media"
        case .noSuchFile: return "no-such-file"
        case .consentRequired: return APIErrorBody.consentRequiredCode
        case .oncePerUser: return APIErrorBody.oncePerUserCode
        case .noSuchLanguage: return "no-such-language"
        case .unansweredFlags: return "unanswered-flags"
        case .noSuchFlag: return "no-such-flag"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .formSubmitted(let form, .reassigned):
            return "form \(form) is submitted — only incomplete forms can be reassigned (send it back first with `mi return`)"
        case .formSubmitted(let form, let operation):
            return "form \(form) is submitted and waits for the foreman's review — it can no longer be \(operation.rawValue)"
        case .formNotSubmitted(let form, let operation):
            return "form \(form) is not submitted yet — only completed forms can be \(operation.rawValue)"
        case .nameTaken(let name):
            return "you already have a form named \(name) — choose another name"
        case .openQuestions(let form, let questions, let drafts):
            var reasons = drafts.map { "\($0.question) is a table still being typed (\($0.typed) of \($0.cells) cells)" }
            if !questions.isEmpty {
                reasons.append("\(questions.count) question(s) have neither an answer nor a comment: \(questions.joined(separator: ", "))")
            }
            let finish = drafts.isEmpty ? "answer them with `\(ShellWord.mi("fill", form))` or `mi answer`" : "finish with `\(ShellWord.mi("fill", form))`"
            return "form \(form) cannot be submitted: \(reasons.joined(separator: "; ")) — \(finish)"
        case .emptyText(let what, let hint):
            return "the \(what) is empty — \(hint)"
        case .alreadyAssigned(let form, let user):
            return "form \(form) already belongs to \(user) — choose another technician (`mi users`)"
        case .noSuchMedia(let form, let media, let available):
            return "form \(form) has no media \"\(SafeName.printable(media))\""
                + (available.isEmpty ? "" : " (it has: \(available.joined(separator: ", ")))") + " — `\(ShellWord.mi("media", form))` lists them"
        case .mediaMissing(let form, let media):
            return "media \(media) of form \(form) is missing on disk — nothing was uploaded; detach it or ask the technician"
        case .notMedia(let file, let known):
            return "\(file) is not a photo, video or audio file (its extension must be one of \(known.joined(separator: ", "))) — nothing was attached"
        case .noSuchFile(let path):
            return "no such file: \(SafeName.printable(path)) — nothing was attached"
        case .consentRequired(let form, let template):
            return "form \(form) needs the respondent's acceptance of the consent of template \(template) first — nothing was changed; "
                + "read and accept it with `\(ShellWord.mi("fill", form))`, or pass --accept-consent to `mi answer` or `mi fill`"
        case .oncePerUser(let template, let user, let existing):
            return "template \(template) is answered once per person and \(user) already has a form of it: \(existing.description) — nothing was changed"
        case .noSuchLanguage(let template, let requested, let languages):
            let known = languages.isEmpty ? "it is written in one language only" : "its languages: \(languages.joined(separator: ", "))"
            return "template \(template) has no language \"\(SafeName.printable(requested))\" (\(known)) — nothing was changed"
        case .unansweredFlags(let form, let flags):
            let list = flags.map { "\($0.question) (“\($0.note)”)" }.joined(separator: "; ")
            return "form \(form) cannot be submitted: the office flagged \(flags.count) question(s) not answered yet: \(list) — "
                + "change the answer, or reply with `\(ShellWord.mi("answer", form)) PATH --reply TEXT`"
        case .noSuchFlag(let form, let question, let flagged):
            let list = flagged.isEmpty ? "the office flagged no question of it" : "flagged: \(flagged.joined(separator: ", "))"
            return "form \(form) has no flag on \(SafeName.printable(question)) (\(list)) — nothing was changed"
        }
    }
}
