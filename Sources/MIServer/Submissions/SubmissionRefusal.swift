/// Why the server does not take a submission (or a question about submissions), with the
/// sentence the client is shown. The acceptance rules (`SubmissionIntake`, `SubmissionAcceptance`)
/// throw it; `HTTPRefusal` is the one place that gives it an HTTP status.
struct SubmissionRefusal: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// The request is malformed: not an upload the server can read (a wrong id, no form part,
        /// media that do not match form.json, a bad listing parameter).
        case malformed
        /// A readable form the server will not store (its user, template, logic, consent,
        /// simulated answers).
        case unacceptable
        /// The server holds something that rules the form out (other content under its id, the
        /// user's first answer of a once-per-person template).
        case conflict
        /// Larger than `Server.MaxUploadBytes`.
        case tooLarge
        /// The directory cannot say who the form's user is; ask again after `retryAfterSeconds`.
        case directoryUnavailable(retryAfterSeconds: Int)
        /// No such submission, or one the caller may not see.
        case notFound
        /// The caller's role may not see it.
        case forbidden
    }

    let kind: Kind
    let message: String
    /// The stable code of the error body (`APIErrorBody.consentRequiredCode`, …), if any.
    let code: String?

    init(_ kind: Kind, _ message: String, code: String? = nil) {
        self.kind = kind
        self.message = message
        self.code = code
    }
}
