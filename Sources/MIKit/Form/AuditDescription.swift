extension AuditEvent {
    /// What happened and who did it, in words: "created from template pump v3 by ana",
    /// "answered q1, q2 by ana", "assigned from bob to carla by fiona". The one description of
    /// an event, for `mi review --history` and the PDF alike (callers escape it for display).
    public var sentence: String {
        let who = "by \(by)"
        let questionList = (questions ?? []).joined(separator: ", ")
        switch action {
        case .created:
            return ["created", note.map { "from \($0)" }, who].compactMap { $0 }.joined(separator: " ")
        case .answered:
            return ["answered", questionList.isEmpty ? nil : questionList, who].compactMap { $0 }.joined(separator: " ")
        case .attached:
            return ["attached", media, questionList.isEmpty ? nil : "to \(questionList)", who].compactMap { $0 }.joined(separator: " ")
        case .detached:
            return ["detached", media, questionList.isEmpty ? nil : "from \(questionList)", who].compactMap { $0 }.joined(separator: " ")
        case .submitted:
            return "submitted \(who)"
        case .commented:
            return "commented \(who)" + quoted(note)
        case .returned:
            return "sent back \(who)" + quoted(note)
        case .assigned, .renamed:
            let verb = action == .assigned ? "assigned" : "renamed"
            return [verb, from.map { "from \($0)" }, to.map { "to \($0)" }, who].compactMap { $0 }.joined(separator: " ")
        case .uploaded:
            return "uploaded \(who)"
        case .simulated:
            return "answers simulated (mi simulate) \(who)"
        case .consented:
            return "consent accepted \(who)" + (note.map { " (text SHA-256 \($0))" } ?? "")
        }
    }

    private func quoted(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "" }
        return ": “\(text)”"
    }
}
