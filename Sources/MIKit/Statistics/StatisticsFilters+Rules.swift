import Foundation

extension StatisticsFilters {
    /// Whether statistics and exports count `form`: a completed (submitted) form, submitted
    /// within `from`…`to` (`from` inclusive, `to` exclusive — the parsers make a `to` day
    /// inclusive by handing the start of the next), by `user`, of template version `version`.
    /// The template itself is the caller's choice (the builder checks the id).
    public func includes(_ form: Form) -> Bool {
        guard form.status == .completed else { return false }
        if let user, form.user != user { return false }
        if let version, form.template.version != version { return false }
        if from != nil || to != nil {
            guard let submitted = form.submittedAt else { return false }
            if let from, submitted < from { return false }
            if let to, submitted >= to { return false }
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
