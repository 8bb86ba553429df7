import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Review: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A form's answers, comments and media as a table.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms)
        var form: String

        @Flag(help: "Also show the audit trail: who did what, when.")
        var history = false

        func run() throws {
            let context = try Context.anyone(global)
            let (form, media) = try context.run { workflow -> (Form, [MediaFile]) in
                let location = try workflow.resolve(self.form)
                let form = try workflow.store.load(location)
                return (form, workflow.media(of: form, at: location))
            }
            if global.json {
                try Terminal.json(FormJSON(form, media: media, history: history))
            } else {
                Terminal.out(ReviewText.render(form, media: media, history: history))
            }
        }
    }
}

/// The human-readable review: a header, one row per question, foreman comments, history.
/// Everything in it comes from form.json, which another tool may have written: control
/// characters are shown escaped (`DisplayText`), cell by cell so the table's widths hold, and
/// once more over the whole text for the header, comments and history.
enum ReviewText {
    static func render(_ form: Form, media: [MediaFile], history: Bool) -> String {
        let form = form.shown()
        var lines: [String] = []
        let done = form.answerableCount - form.openSlots.count
        lines.append("\(form.name) — \(form.template.title) (\(form.template.id) v\(form.template.version))")
        lines.append("id \(form.id.description) · \(form.technicianLabel) · \(form.status.rawValue) · created \(Format.date(form.createdAt)) · updated \(Format.date(form.updatedAt))"
                     + (form.submittedAt.map { " · submitted \(Format.date($0))" } ?? ""))
        lines.append("\(done) of \(form.answerableCount) questions done")
        if form.isSimulated { lines.append("Simulated form (mi simulate) — not a real inspection") }
        if let line = consentLine(form) { lines.append(line) }
        if let line = startLocationLine(form) { lines.append(line) }
        if let note = form.returnNote, let returned = form.returnedAt {
            lines.append("Sent back \(Format.date(returned)): \(note)")
        }
        lines.append("")
        var table = TableRenderer(["#", "QUESTION", "ANSWER", "COMMENT", "MEDIA"], wrapping: [1, 2, 3])
        let logic = form.template.hasLogic ? FormLogic(template: form.template) : nil
        for row in FormOutline(form, logic: logic).rows {
            switch row {
            case .heading(let text, let depth, let relevant):
                let heading = String(repeating: "  ", count: depth) + "▸ " + text + (relevant ? "" : " (not relevant — not submitted)")
                table.add(["", heading, "", "", ""])
            case .slot(let slot, let number, let depth):
                let question = slot.question
                let answer = form.answer(for: slot.key)
                let files = media.filter { $0.questionID == slot.key }
                    .map { "\($0.name) (\($0.kind.rawValue), \(Format.bytes($0.bytes)))" }.joined(separator: "\n")
                let done = logic.map { $0.isDone(slot, in: form) } ?? form.isDone(question)
                var answerText = displayDraftAnswer(answer, question: question)
                    ?? display(answer, question: question) ?? (done ? "—" : "— (open)")
                if case .note? = question.type.presentation(of: answer.value) { answerText = "(note)" }
                if answerText.isEmpty { answerText = "—" }
                if let logic, !logic.isRelevant(slot, in: form) {
                    answerText = answerText == "—" ? "— (not relevant — not submitted)" : answerText + " (not relevant — not submitted)"
                }
                let name = slot.instance.isEmpty ? question.id : slot.key
                table.add([String(number), String(repeating: "  ", count: depth) + "\(question.text) [\(name)]", answerText, answer.comment ?? "", files]
                    .map { DisplayText.escaped($0, keepingNewlines: true) })
            }
        }
        lines.append(table.render())
        if let scores = form.scores {
            lines.append("")
            lines.append(contentsOf: ScoresText.lines(scores))
        }
        if !form.foremanComments.isEmpty {
            lines.append("")
            lines.append("Foreman comments:")
            for comment in form.foremanComments { lines.append("  \(Format.date(comment.at)) \(comment.by): \(comment.text)") }
        }
        if history {
            lines.append("")
            lines.append("History:")
            // One line per event: a note's line breaks are shown as \n.
            // A local form was never uploaded from here (a verified upload removes it).
            for event in form.audit { lines.append("  \(Format.date(event.at))  \(DisplayText.escaped(event.sentenceInLocalStore))") }
        }
        return DisplayText.escaped(lines.joined(separator: "\n"), keepingNewlines: true)
    }

    /// The consent's state, for a template that has a consent text: who accepted it and when,
    /// with the SHA-256 of the text accepted, or how to accept it.
    static func consentLine(_ form: Form) -> String? {
        guard form.template.consent != nil else { return nil }
        guard let consent = form.consent else {
            return "Consent not accepted yet — accept it with `\(ShellWord.mi("fill", form.name))` or `\(ShellWord.mi("answer", form.name)) --accept-consent`"
        }
        let accepted = "Consent accepted by \(consent.by) on \(Format.date(consent.at)) (text SHA-256 \(consent.sha256))"
        return form.hasRequiredConsent ? accepted : accepted + " — not this template's text; accept it again with `\(ShellWord.mi("fill", form.name))`"
    }

    /// Where the form was started, for a form that has a start location or a template that asks
    /// for one.
    static func startLocationLine(_ form: Form) -> String? {
        if let point = form.startLocation { return "Started at \(point)" }
        guard form.template.captureLocation else { return nil }
        return "Started at: no location recorded (`\(ShellWord.mi("review", form.name)) --history` says why)"
    }

    /// The whole answer as its type presents it: attached files that are the answer (a photo
    /// question's) counted, "1 photo attached (see MEDIA)", since the MEDIA column lists them
    /// with their sizes; else the value; nil for no answer.
    static func display(_ answer: Answer, question: Question) -> String? {
        if case .media(let kind, let names)? = question.type.presentation(of: answer) {
            return mediaAnswer(kind, count: names.count)
        }
        return answer.value.map { display($0, question: question) }
    }

    static func mediaAnswer(_ kind: MediaKind, count: Int) -> String { "\(kind.attached(count)) (see MEDIA)" }

    /// The answer as its type presents it: a grid one line per row so it reads as a table,
    /// choices as the chosen labels; control characters are escaped.
    static func display(_ value: AnswerValue, question: Question) -> String {
        switch question.type.presentation(of: value) {
        case .grid(let grid, let cells)?:
            return grid.rows.indices.map { r in
                DisplayText.escaped("\(grid.rows[r]): " + grid.columns.indices.map { c in
                    "\(grid.columns[c]) \(GridLayout.cell(cells, r, c) ?? "■")"
                }.joined(separator: ", "))
            }.joined(separator: "\n")
        case .choices(let list)?: return DisplayText.escaped(list.chosen.joined(separator: ", "), keepingNewlines: true)
        case .yesNo(let yes)?: return yes ? "true" : "false"
        case .text(let text)?: return DisplayText.escaped(text, keepingNewlines: true)
        case .note?: return "(note)"
        case .location(let point)?: return point.description
        case .media(let kind, let names)?: return mediaAnswer(kind, count: names.count)
        case nil: return DisplayText.escaped(value.display, keepingNewlines: true)
        }
    }
}
