import Foundation

extension StatisticsFilters {
    /// Whether statistics and exports count `form`: a completed (submitted) form, submitted
    /// within `from`…`to` (`from` inclusive, `to` exclusive — the parsers make a `to` day
    /// inclusive by handing the start of the next), by `user`, of template version `version`.
    /// The template itself is the caller's choice (the builder checks the id).
    public func includes(_ form: Form) -> Bool {
        includes(status: form.status, user: form.user, version: form.template.version, submittedAt: form.submittedAt)
    }

    /// `includes(_:)` from a form's summary, so a listing can choose the forms to read whole.
    public func includes(_ summary: FormSummary) -> Bool {
        includes(status: summary.status, user: summary.user, version: summary.templateVersion, submittedAt: summary.submittedAt)
    }

    private func includes(status: Form.Status, user formUser: String, version formVersion: Int, submittedAt: Date?) -> Bool {
        guard status == .completed else { return false }
        if let user, formUser != user { return false }
        if let version, formVersion != version { return false }
        if from != nil || to != nil {
            guard let submittedAt else { return false }
            if let from, submittedAt < from { return false }
            if let to, submittedAt >= to { return false }
        }
        return true
    }

    /// The filters as `actor` may use them: a technician sees only their own forms (an absent
    /// user becomes them; another user is refused), a foreman everyone's.
    public func scoped(to actor: Actor) throws(StatisticsError) -> StatisticsFilters {
        guard actor.role == .technician else { return self }
        if let user, user != actor.name { throw .otherTechnician(user: user, actor: actor.name) }
        var scoped = self
        scoped.user = actor.name
        return scoped
    }

    /// `from` and `to` read from their text (`YYYY-MM-DD` or ISO 8601; a `to` day is
    /// inclusive), the way `--from/--to` and the `from`/`to` parameters take them; `names`
    /// says what to call them in an error (`--from` on the command line).
    public static func dates(from: String?, to: String?, names: (from: String, to: String) = ("from", "to"))
        throws(UTCDayError) -> (from: Date?, to: Date?) {
        let start = try from.map { text throws(UTCDayError) in try UTCDay.parse(text, parameter: names.from, endOfDay: false) }
        let end = try to.map { text throws(UTCDayError) in try UTCDay.parse(text, parameter: names.to, endOfDay: true) }
        if let start, let end, end <= start {
            throw .invalid(parameter: names.to, value: to ?? "", expected: "a day on or after \(names.from)")
        }
        return (start, end)
    }
}
