import Foundation

extension Form {
    /// Records that `user` accepted the consent text of this form's template copy at `date`
    /// (its SHA-256, and a `.consented` audit event); nothing when the template has no consent
    /// text or that very text is already accepted. Returns whether anything was recorded.
    @discardableResult
    public mutating func acceptConsent(by user: String, at date: Date) -> Bool {
        guard let digest = template.consentDigest, consent?.sha256 != digest else { return false }
        consent = ConsentAcceptance(by: user, at: date, sha256: digest)
        record(AuditEvent(at: date, by: user, action: .consented, note: digest))
        return true
    }
}

extension Workflow {
    /// The respondent (the actor) accepts the consent text of the form's template: recorded with
    /// who, when and the text's SHA-256 in form.json and the audit trail. A form whose template
    /// has no consent text, or whose text is already accepted, is returned unchanged, so scripts
    /// may pass `--accept-consent` to every form.
    public func acceptConsent(_ reference: String) throws -> Form {
        let (location, original) = try openForChange(reference)
        var form = original
        guard form.acceptConsent(by: actor.name, at: now()) else { return form }
        try store.save(form, at: location)
        return form
    }

    /// The rule that answers and submissions wait for the consent (`Form.hasRequiredConsent`).
    static func checkConsent(_ form: Form, name: String) throws {
        guard form.hasRequiredConsent else {
            throw WorkflowError.consentRequired(form: name, template: form.template.id)
        }
    }
}
