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
        case .cleared:
            // At submission, form logic clears what is not relevant and says so in the note.
            return ["cleared the answer to", questionList.isEmpty ? nil : questionList, who].compactMap { $0 }.joined(separator: " ")
                + (note.map { " (\($0))" } ?? "")
        case .removed:
            return ["removed the instance", questionList.isEmpty ? nil : questionList, who].compactMap { $0 }.joined(separator: " ")
                + (note.map { " (\($0))" } ?? "")
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
        case .replied:
            return ["replied to the flag on", questionList.isEmpty ? nil : questionList, who].compactMap { $0 }.joined(separator: " ") + quoted(note)
        case .assigned, .renamed:
            let verb = action == .assigned ? "assigned" : "renamed"
            return [verb, from.map { "from \($0)" }, to.map { "to \($0)" }, who].compactMap { $0 }.joined(separator: " ")
        case .uploaded:
            return "uploaded \(who)"
        case .simulated:
            return "answers simulated (mi simulate) \(who)"
        case .located:
            return ["location", note, who].compactMap { $0 }.joined(separator: " ")
        case .consented:
            return "consent accepted \(who)" + (note.map { " (text SHA-256 \($0))" } ?? "")
        }
    }

    /// `sentence` for a form still in a local store. A verified upload removes the local copy,
    /// so an "uploaded" event found there was written by an older `mi` before an attempt whose
    /// receipt was never verified: it is told as that, not as an upload.
    public var sentenceInLocalStore: String {
        action == .uploaded ? "upload attempted by \(by), never confirmed by the server" : sentence
    }

    private func quoted(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "" }
        return ": “\(text)”"
    }
}
