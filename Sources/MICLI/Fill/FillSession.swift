import Foundation
import MIKit
import MIDevices

/// `mi fill`: the form question by question. Next saves the answer (form.json is written
/// under the store's lock at every step), a table is saved cell by cell as a draft until it is
/// complete; Back goes back without saving; :x keeps the form for later. After the last
/// question comes the review, from which any question reopens. On a terminal an invalid line
/// is asked again; piped, it ends fill with its error (exit 65) and what came before stays saved.
struct FillSession {
    let context: Context
    let prompter = Prompter()
    var location: FormLocation
    var form: Form
    /// `--accept-consent`: accept the template's consent text without asking.
    let acceptConsent: Bool
    /// Seconds a location question waits for gpsd's fix (`--gps-timeout`).
    let gpsTimeout: Int

    enum Step { case next, back, exit }

    init(context: Context, reference: String, acceptConsent: Bool = false, gpsTimeout: Int = GPSFix.defaultTimeout) throws {
        self.context = context
        self.acceptConsent = acceptConsent
        self.gpsTimeout = gpsTimeout
        let (location, form) = try context.run { try $0.openForChange(reference, operation: .filled) }
        self.location = location
        self.form = form
    }

    /// Whether Ctrl-C ended the dialogue (everything typed before it is saved).
    var interrupted: Bool { prompter.interrupted }

    /// Returns true when the form was submitted.
    mutating func run() throws -> Bool {
        let questions = form.template.questions
        prompter.say("\(form.name) — \(DisplayText.escaped(form.template.title)) (\(Format.plural(questions.count, "question")))")
        guard try askConsent() else { return false }
        prompter.say(FillInput.legend)
        var index = questions.firstIndex { !form.isDone($0) } ?? questions.count
        // The notes just before the first open question are shown before it.
        while index > 0, index < questions.count, !questions[index - 1].type.takesAnswer { index -= 1 }
        while index < questions.count {
            switch try ask(index) {
            case .next: index += 1
            case .back:
                // Back goes to the previous question that takes an answer, past the notes.
                let previous = questions[..<index].lastIndex { $0.type.takesAnswer && isAsked($0) }
                if let previous { index = previous } else { prompter.say("This is the first question.") }
            case .exit:
                finish()
                return false
            }
        }
        return try reviewLoop()
    }

    /// The words that accept a consent text, typed in any case.
    static let acceptances: Set<String> = ["acepto", "yes", "y"]

    /// A template's consent text comes before the first question: shown, then accepted only by
    /// an explicit word (or `--accept-consent`). Anything else, or the end of input, changes
    /// nothing and stops with the refusal (exit 65).
    mutating func askConsent() throws -> Bool {
        guard !form.hasRequiredConsent, let text = form.template.consent else { return true }
        if !acceptConsent {
            prompter.say("")
            prompter.say("Consent — read it before the first question:")
            prompter.say(DisplayText.escaped(text, keepingNewlines: true))
            prompter.say("")
            let line = prompter.ask("Type acepto (or yes) to accept, anything else to stop: ")
            let word = line?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard Self.acceptances.contains(word) else {
                if interrupted { return false }
                throw WorkflowError.consentRequired(form: form.name, template: form.template.id)
            }
        }
        form = try context.run { try $0.acceptConsent(form.name) }
        prompter.say("Consent accepted by \(form.consent?.by ?? context.workflow.actor.name).")
        return true
    }

    /// The review table; a number reopens that question, :s submits, :x or Enter saves and exits.
    mutating func reviewLoop() throws -> Bool {
        let count = form.template.questions.count
        while true {
            prompter.say("")
            prompter.say(ReviewText.render(form, media: context.workflow.media(of: form, at: location), history: false))
            prompter.say("")
            guard let line = prompter.ask("Review: a question number (1-\(count)) to edit, :s to submit, Enter to save and exit: ") else {
                finish()
                return false
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed.isEmpty || trimmed == ":x" || trimmed == ":q" || trimmed == ":exit" {
                finish()
                return false
            }
            if trimmed == ":s" || trimmed == ":submit" {
                do {
                    let (_, submitted) = try context.run { try $0.submit(form.name) }
                    prompter.say("Submitted \(submitted.name): it now waits for the foreman's review.")
                    return true
                } catch {
                    guard prompter.interactive else { throw error }
                    prompter.say("Cannot submit yet: \(error.localizedDescription)")
                    continue
                }
            }
            guard let number = Int(trimmed), (1...count).contains(number) else {
                try refuse(FillError.notAQuestionNumber(line: trimmed, count: count))
                continue
            }
            let chosen = form.template.questions[number - 1]
            if chosen.type.takesAnswer, !isAsked(chosen) {
                prompter.say("Question \(number) is not asked now: it is not relevant, or its value is calculated or read-only.")
                continue
            }
            if case .exit = try ask(number - 1) {
                finish()
                return false
            }
        }
    }

    func finish() {
        let open = form.openSlots.count
        let drafts = form.template.questions.filter { form.answer(for: $0.id).draft != nil }.count
        var text = interrupted ? "Interrupted. " : ""
        if open == 0 {
            text += "Saved \(form.name). Every question is done — submit with: \(ShellWord.mi("submit", form.name))"
        } else {
            let partly = drafts == 0 ? "" : ", \(Format.plural(drafts, "table")) partly typed"
            text += "Saved \(form.name) (\(open) question(s) still open\(partly)). Continue with: \(ShellWord.mi("fill", form.name))"
        }
        prompter.say(text)
    }

    /// On a terminal the person is told and asked again; piped input stops with the error.
    func refuse(_ error: Error) throws {
        guard prompter.interactive else { throw error }
        prompter.say(error.localizedDescription.replacingOccurrences(of: " — nothing was saved", with: "") + " — try again")
    }

    // MARK: - One question

    /// Whether form logic asks the question now (relevant, neither calculated nor read-only);
    /// every question of a template without logic is asked.
    func isAsked(_ question: Question) -> Bool {
        question.logic.isEmpty || FormLogic(template: form.template).isAsked(question, in: form)
    }

    mutating func ask(_ index: Int) throws -> Step {
        let question = form.template.questions[index]
        // Form logic: a question that is not relevant now, or is calculated or read-only, is not asked.
        if question.type.takesAnswer, !isAsked(question) { return .next }
        let rules = Workflow.rules(for: index, in: form)
        let current = form.answer(for: question.id)
        prompter.say("")
        for line in QuestionPrompt.lines(for: question, index: index, count: form.template.questions.count) {
            prompter.say(line)
        }
        // A note is shown and passed: nothing to answer.
        guard question.type.takesAnswer else { return .next }
        let labels = question.type.completions
        if let value = current.value { prompter.say("Current answer: \(ReviewText.display(value, question: question))") }
        if let comment = current.comment { prompter.say("Comment: \(DisplayText.escaped(comment, keepingNewlines: true))") }
        if let line = imageLine(question) { prompter.say(line) }
        if question.logic.choiceFilter != nil, let offered = FormLogic(template: form.template).choiceNames(question, in: form) {
            let labels = (question.type.filterableChoices ?? []).filter { offered.contains($0.name) }.map(\.label)
            prompter.say("Offered here: " + DisplayText.escaped(labels.isEmpty ? "none" : labels.joined(separator: ", ")))
        }
        if !current.media.isEmpty { prompter.say("Media: \(DisplayText.escaped(current.media.joined(separator: ", ")))") }
        if let grid = question.type.grid { return try askTable(question, grid: grid, rules: rules) }
        if let media = question.type.answerMedia { return try askFiles(question, media, rules: rules) }

        var pendingComment: String?
        /// A line typed at the keep-or-clear question that is a new answer: read as if typed here.
        var typedAhead: String?
        while true {
            let current = form.answer(for: question.id)
            guard let line = typedAhead ?? prompter.ask(QuestionPrompt.answerPrompt(for: question), completing: labels) else {
                return try saveThenExit(question, pendingComment)
            }
            typedAhead = nil
            var input = FillInput(line)
            // Enter on an answered question, on a terminal, asks before it goes on: Enter again
            // keeps the answer (what Enter always did), `clear` withdraws it, anything else is a
            // new answer. Piped, an empty line keeps the answer without asking.
            if input == .next, let old = current.value, prompter.interactive {
                let shown = ReviewText.display(old, question: question)
                guard let reply = prompter.ask("Enter keeps \(shown); type clear to withdraw it, or a new answer > ", completing: labels) else {
                    return try saveThenExit(question, pendingComment)
                }
                switch reply.trimmingCharacters(in: .whitespaces).lowercased() {
                case "": break
                case "clear", ":clear": input = .clear
                default:
                    typedAhead = reply
                    continue
                }
            }
            let value: AnswerValue?
            if let wanted = question.type.positionFix, Self.asksForFix(line, answered: current.value != nil) {
                do {
                    let point = try GPSFix.take(context.configuration, accuracy: wanted.accuracy, timeout: gpsTimeout)
                    value = try rules.value(fromJSON: point.json)
                    prompter.say("GPS fix: \(point)")
                } catch let error as GPSDError {
                    if !prompter.interactive, let pendingComment { try save(question, value: nil, comment: pendingComment) }
                    try refuse(GPSFixError(underlying: error, typed: "latitude longitude [altitude] [accuracy], e.g. 19.4326 -99.1332"))
                    continue
                } catch {
                    if !prompter.interactive, let pendingComment { try save(question, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
            } else {
            switch input {
            case .back:
                if pendingComment != nil { prompter.say("The comment was not saved (:b goes back without saving).") }
                return .back
            case .saveAndExit: return try saveThenExit(question, pendingComment)
            case .help:
                showHelp(question)
                continue
            case .image:
                showImage(question)
                continue
            case .scan(let path):
                do {
                    try scan(question, path, rules: rules)
                } catch {
                    if !prompter.interactive, let pendingComment { try save(question, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
                if let pendingComment { try save(question, value: nil, comment: pendingComment) }
                return .next
            case .comment(let text):
                pendingComment = text
                prompter.say(text.isEmpty ? "Comment removed (saved with Next)." : "Comment noted (saved with Next).")
                continue
            case .clear:
                try clearAnswer(question, pendingComment)
                pendingComment = nil
                continue
            case .next:
                value = nil
            case .answer(let text):
                do {
                    let typed = try rules.value(fromLine: text)
                    // A constraint's message is shown at once, and the question asked again.
                    if !question.logic.isEmpty, let message = FormLogic(template: form.template).constraintProblem(question, value: typed, in: form) {
                        throw rules.refuse(message)
                    }
                    value = typed
                } catch {
                    // Piped input stops here; the comment typed before the bad line is kept.
                    if !prompter.interactive, let pendingComment { try save(question, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
            }
            }
            let comment = pendingComment ?? current.comment ?? ""
            let required = question.logic.isEmpty ? nil : FormLogic(template: form.template).isRequired(question, in: form)
            if value == nil && current.value == nil && required == true {
                // Required: a comment alone does not do.
                if !prompter.interactive, let pendingComment { try save(question, value: nil, comment: pendingComment) }
                try refuse(rules.refuse(FormLogic(template: form.template).requiredMessage(question)))
                continue
            }
            if value == nil && current.value == nil && required == nil && comment.trimmingCharacters(in: .whitespaces).isEmpty {
                try refuse(FillError.needsAnswerOrComment(question: rules.label))
                continue
            }
            if value != nil || pendingComment != nil {
                try save(question, value: value, comment: pendingComment)
            }
            return .next
        }
    }

    /// On a location question, `gps` takes a fix from gpsd, and so does Enter while the question
    /// has no answer yet (with one, Enter keeps it, as on every question).
    static func asksForFix(_ line: String, answered: Bool) -> Bool {
        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
        return word == "gps" || (word.isEmpty && !answered)
    }

    /// Withdraws the question's answer (with a pending comment, saved with it); its comment and
    /// media stay. The question is asked again: a new answer, a comment, or :x to leave it open.
    mutating func clearAnswer(_ question: Question, _ pendingComment: String?,
                              hint: String = "Type a new answer, :c TEXT for a comment, or :x to leave it open.") throws {
        let before = form.answer(for: question.id)
        guard before.value != nil || before.draft != nil else {
            if let pendingComment { try save(question, value: nil, comment: pendingComment) }
            if question.type.answerMedia != nil {
                return prompter.say("The answer is the attached files: nothing to clear; \(ShellWord.mi("detach", form.name)) MEDIA removes one.")
            }
            return prompter.say("There is no answer to clear.")
        }
        try save(AnswerUpdate(question: question.id, value: .clear, comment: pendingComment))
        let after = form.answer(for: question.id)
        var kept: [String] = []
        if after.comment != nil { kept.append("the comment") }
        if !after.media.isEmpty { kept.append(Format.plural(after.media.count, "media file")) }
        let keeping = kept.isEmpty ? "" : " (\(kept.joined(separator: " and ")) kept)"
        prompter.say("Cleared the answer\(keeping). \(hint)")
    }

    func showHelp(_ question: Question) {
        prompter.say(question.help.map { "Help: \(DisplayText.escaped($0, keepingNewlines: true))" } ?? "No help for this question.")
        prompter.say(FillInput.legend)
    }

    /// The picture's line under the question: its path in the template cache, or why it is not there.
    func imageLine(_ question: Question) -> String? {
        guard let name = question.image else { return nil }
        if let url = templateCache.image(of: question, in: form.template) {
            return "Imagen: \(url.path) (:img opens it)"
        }
        return "Imagen: \(DisplayText.escaped(name)) is not in the template cache — download it with `mi templates` when online"
    }

    func showImage(_ question: Question) {
        guard question.image != nil else { return prompter.say("This question shows no picture.") }
        guard let url = templateCache.image(of: question, in: form.template) else {
            return prompter.say(imageLine(question) ?? "")
        }
        prompter.say(ImageViewer.open(url))
    }

    var templateCache: TemplateCache { TemplateCache(store: context.store, keys: context.configuration.templateKeys) }

    // MARK: - Codes read from photos, files that are the answer

    static let noScanHere = ":scan reads a code from a photo into a one-line answer, not into a table cell."

    /// `:scan PATH`: the code in the photo (zbarimg) becomes the answer, the photo its media.
    mutating func scan(_ question: Question, _ path: String, rules: AnswerRules) throws {
        let code = try ScannedCode.read(path, question: rules.label)
        let name = form.name
        let attached = try context.locked { try $0.attach(name, question: question.id, files: [URL(fileURLWithPath: path)],
                                                          value: .words([code])) }
        form = try context.locked { try $0.store.load(try $0.resolve(name)) }
        prompter.say("Read \(DisplayText.escaped(code)) from the photo, kept as \(attached.map(\.name).joined(separator: ", ")).")
    }

    /// A question whose answer is its file (a photo): each line is the path of a file to attach
    /// (Tab completes paths), until the question has `maxFiles`; Enter goes on once it has one
    /// (or a comment). The file is copied at once; a refused one (another kind, too many, no
    /// such file) is asked again on a terminal and ends piped input (exit 65 or 66).
    mutating func askFiles(_ question: Question, _ media: MediaAnswer, rules: AnswerRules) throws -> Step {
        var pendingComment: String?
        if media.maxFiles > 1 { prompter.say("Up to \(media.maxFiles) files: one path a line, Enter when done.") }
        while true {
            guard let line = prompter.ask(QuestionPrompt.answerPrompt(for: question), paths: true) else {
                return try saveThenExit(question, pendingComment)
            }
            switch FillInput(line) {
            case .back:
                if pendingComment != nil { prompter.say("The comment was not saved (:b goes back without saving).") }
                return .back
            case .saveAndExit: return try saveThenExit(question, pendingComment)
            case .help: showHelp(question)
            case .image: showImage(question)
            case .scan: prompter.say("Type the path of the \(media.kind.rawValue) itself: it is the answer.")
            case .clear:
                prompter.say("The \(media.kind.rawValue) attached is the answer: `\(ShellWord.mi("detach", form.name)) MEDIA` removes one.")
            case .comment(let text):
                pendingComment = text
                prompter.say(text.isEmpty ? "Comment removed (saved with Next)." : "Comment noted (saved with Next).")
            case .next:
                if let pendingComment { try save(question, value: nil, comment: pendingComment) }
                guard form.isDone(question) else {
                    try refuse(FillError.needsFileOrComment(question: rules.label, kind: media.kind.rawValue))
                    continue
                }
                return .next
            case .answer(let text):
                let path = FillInput.path(text)
                let name = form.name
                do {
                    let attached = try context.locked { try $0.attach(name, question: question.id, files: [URL(fileURLWithPath: path)]) }
                    form = try context.locked { try $0.store.load(try $0.resolve(name)) }
                    for file in attached { prompter.say("Attached \(DisplayText.escaped(path)) as \(file.name) (\(Format.bytes(file.bytes))).") }
                } catch {
                    if !prompter.interactive, let pendingComment { try save(question, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
                if form.answer(for: question.id).media.count >= media.maxFiles {
                    if let pendingComment { try save(question, value: nil, comment: pendingComment) }
                    return .next
                }
            }
        }
    }

    // MARK: - Tables

    /// Cell by cell, skipping the cells that take no value. Each cell typed is saved at once,
    /// so :x, Ctrl-C or a lost terminal keep it: while the table has empty cells as the answer's
    /// draft (the next fill shows it and asks only the cells still empty), and once every cell
    /// has a value as the answer itself. So re-editing a finished table never turns it back into
    /// a draft: the answer is the previous table until a changed one is complete. :b goes back
    /// one cell (from the first, to the previous question); Enter keeps a cell's value.
    mutating func askTable(_ question: Question, grid: GridLayout, rules: AnswerRules) throws -> Step {
        let (rows, columns) = (grid.rows, grid.columns)
        let current = form.answer(for: question.id)
        let valueCells = grid.valueCells
        var cells = current.draft ?? rows.map { _ in columns.map { _ -> String? in nil } }
        if current.draft == nil, case .cells(let existing) = current.value { cells = existing }
        if current.draft != nil {
            prompter.say("Typed so far (a draft, \(current.draftCellCount) of \(valueCells.count) cells):")
            prompter.say(DisplayText.escaped(ReviewText.displayDraft(cells, question: question), keepingNewlines: true))
        }

        /// Whether every cell is asked in turn (re-editing, or after :b), not only the empty ones.
        var stepping = false
        if valueCells.allSatisfy({ cells[$0.row][$0.column] != nil }) {
            let finished = current.draft == nil
            while !stepping {
                let prompt = finished ? "Enter keeps the table, e edits it (or :b/:x/:c TEXT/:clear/?) > "
                                      : "Enter saves this table, e edits it (or :b/:x/:c TEXT/:clear/?) > "
                guard let line = prompter.ask(prompt) else { return .exit }
                switch FillInput(line) {
                case .next:
                    if !finished { try save(question, value: try rules.checkTable(cells), comment: nil) }
                    return .next
                case .clear:
                    // The whole table withdrawn: its cells are asked again from the first.
                    try clearAnswer(question, nil, hint: "Its cells are asked again from the first; :x leaves it open.")
                    cells = rows.map { _ in columns.map { _ -> String? in nil } }
                    stepping = true
                case .back: return .back
                case .saveAndExit: return .exit
                case .comment(let text): try saveTableComment(question, text)
                case .help: showHelp(question)
                case .image: showImage(question)
                case .scan: prompter.say(FillSession.noScanHere)
                case .answer: stepping = true
                }
            }
        }

        /// The next cell to ask after `position`: the next one when stepping, else the next empty one.
        func following(_ position: Int) -> Int {
            var next = position + 1
            while !stepping, next < valueCells.count, cells[valueCells[next].row][valueCells[next].column] != nil { next += 1 }
            return next
        }
        var position = stepping ? 0 : following(-1)
        while position < valueCells.count {
            let (r, c) = (valueCells[position].row, valueCells[position].column)
            let old = cells[r][c]
            guard let line = prompter.ask(QuestionPrompt.cellPrompt(row: rows[r], column: columns[c], current: old)) else {
                sayDraftKept(question, cells: valueCells.count)
                return .exit
            }
            switch FillInput(line) {
            case .back:
                guard position > 0 else {
                    sayDraftKept(question, cells: valueCells.count)
                    return .back
                }
                stepping = true
                position -= 1
            case .saveAndExit:
                sayDraftKept(question, cells: valueCells.count)
                return .exit
            case .help:
                showHelp(question)
            case .image:
                showImage(question)
            case .scan:
                prompter.say(FillSession.noScanHere)
            case .comment(let text):
                try saveTableComment(question, text)
            case .clear:
                try clearAnswer(question, nil, hint: "Its cells are asked again from the first; :x leaves it open.")
                cells = rows.map { _ in columns.map { _ -> String? in nil } }
                stepping = false
                position = 0
            case .next:
                if old != nil { position = following(position) } else {
                    try refuse(FillError.cellNeedsValue(question: rules.label, cell: rules.place(r, c)))
                }
            case .answer(let text):
                let typed: String
                do { typed = try rules.cell(text, row: r, column: c) } catch {
                    try refuse(error)
                    continue
                }
                if typed != old {
                    cells[r][c] = typed
                    try saveCells(question, cells, rules: rules)
                }
                position = following(position)
            }
        }
        try save(question, value: try rules.checkTable(cells), comment: nil)
        return .next
    }

    /// The cells typed so far: the answer once every cell has a value, else its draft. A table
    /// that was finished before is never made a draft again (its cells all have values).
    mutating func saveCells(_ question: Question, _ cells: [[String?]], rules: AnswerRules) throws {
        if let value = try? rules.checkTable(cells) {
            try save(question, value: value, comment: nil)
        } else {
            try save(question, draft: cells)
        }
    }

    /// A comment typed inside a table is saved at once, with the cells typed so far.
    mutating func saveTableComment(_ question: Question, _ text: String) throws {
        try save(question, value: nil, comment: text)
        prompter.say(text.isEmpty ? "Comment removed." : "Comment saved.")
    }

    func sayDraftKept(_ question: Question, cells: Int) {
        let answer = form.answer(for: question.id)
        guard answer.draft != nil else { return }
        prompter.say("The table is kept as a draft (\(answer.draftCellCount) of \(cells) cells typed); \(ShellWord.mi("fill", form.name)) goes on from there.")
    }

    // MARK: - Saving

    mutating func saveThenExit(_ question: Question, _ pendingComment: String?) throws -> Step {
        if let pendingComment { try save(question, value: nil, comment: pendingComment) }
        return .exit
    }

    mutating func save(_ question: Question, value: AnswerValue?, comment: String?) throws {
        try save(AnswerUpdate(question: question.id, value: value.map { .validated($0) }, comment: comment))
    }

    mutating func save(_ question: Question, draft: [[String?]]) throws {
        try save(AnswerUpdate(question: question.id, value: .draft(draft)))
    }

    mutating func save(_ update: AnswerUpdate) throws {
        let name = form.name
        form = try context.locked { try $0.answer(name, [update]) }
    }
}
