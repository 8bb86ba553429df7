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

    enum Step {
        case next, back, exit
        /// An open repeat's instance was added (its steps, the parent's and its own).
        case added([InstanceStep])
    }

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

    /// One step of the dialogue: an answer's place (with the headings of the groups and repeat
    /// instances around it, outermost first), or an open repeat's "Add another …?".
    enum FillStep {
        case slot(AnswerSlot, headings: [String])
        case add(QuestionGroup, parent: [InstanceStep], count: Int, headings: [String])

        /// What names the step across layouts: the answer's path, or `+` and the repeat's count key.
        var key: String {
            switch self {
            case .slot(let slot, _): return slot.key
            case .add(let group, let parent, _, _): return "+" + AnswerPath.countKey(group.id, in: parent)
            }
        }
    }

    /// The form's steps as it stands (`FormLogic.layout`, laid out again after every answer, so a
    /// count or a relevance that an answer changes is followed at once): every answer's place,
    /// nothing of a group or repeat instance that is not relevant, and after an open repeat's
    /// instances its "Add another …?".
    func steps() -> [FillStep] {
        let template = form.localizedTemplate
        guard !template.groups.isEmpty else {
            return template.questions.enumerated().map { .slot(AnswerSlot(question: $0.element, index: $0.offset), headings: []) }
        }
        let logic = FormLogic(template: template)
        var steps: [FillStep] = []
        func walk(_ nodes: [FormNode], _ headings: [String]) {
            for node in nodes {
                switch node {
                case .question(let slot): steps.append(.slot(slot, headings: headings))
                case .group(let group, let instance, let children):
                    guard logic.isRelevant(group: group, at: instance, in: form) else { continue }
                    walk(children, headings + [DisplayText.escaped(group.label)])
                case .repeat(let group, let parent, let instances):
                    for instance in instances where logic.isRelevant(group: group, at: instance.instance, in: form) {
                        walk(instance.children, headings + [FormOutline.heading(group, number: instance.number, of: instances.count)])
                    }
                    if group.repeatCount == nil, instances.count < QuestionGroup.maxInstances,
                       logic.isRelevant(group: group, at: parent + [InstanceStep(group.id, instances.count + 1)], in: form) {
                        steps.append(.add(group, parent: parent, count: instances.count, headings: headings))
                    }
                }
            }
        }
        walk(logic.layout(of: form), [])
        return steps
    }

    /// Whether a step still wants something: an open answer, or an open repeat with no instance.
    func isOpen(_ step: FillStep) -> Bool {
        switch step {
        case .slot(let slot, _):
            guard slot.question.type.takesAnswer, isAsked(slot) else { return false }
            return form.template.hasLogic ? !FormLogic(template: form.localizedTemplate).isDone(slot, in: form) : !form.isDone(slot.question)
        case .add(_, _, let count, _): return count == 0
        }
    }

    /// The headings shown last, so a heading is shown once when its group or instance begins.
    var shownHeadings: [String] = []

    /// Returns true when the form was submitted.
    mutating func run() throws -> Bool {
        let questions = form.template.questions
        prompter.say("\(form.name) — \(DisplayText.escaped(form.localizedTemplate.title)) (\(Format.plural(questions.count, "question")))")
        guard try askConsent() else { return false }
        prompter.say(FillInput.legend)
        var steps = self.steps()
        // A form the office sent back starts at the first flag still waiting for an answer.
        let flagged = Set(form.unansweredFlags.map(\.question))
        if !form.flags.isEmpty {
            if let note = form.returnNote { prompter.say("Sent back: \(DisplayText.escaped(note))") }
            prompter.say("The office flagged \(Format.plural(form.flags.count, "question")); \(flagged.count) not answered yet (change the answer, or :c a comment).")
        }
        var index = steps.firstIndex { flagged.contains($0.key) } ?? steps.firstIndex { isOpen($0) } ?? steps.count
        // The notes just before the first open question are shown before it.
        while index > 0, index < steps.count, case .slot(let previous, _) = steps[index - 1], !previous.question.type.takesAnswer { index -= 1 }
        while index < steps.count {
            let step = steps[index]
            let result = try ask(step)
            steps = self.steps()
            let at = steps.firstIndex { $0.key == step.key }
            switch result {
            case .next: index = at.map { $0 + 1 } ?? index
            case .added(let instance):
                // Into the new instance: its first step (or, with nothing in it, the next "Add another").
                let prefix = AnswerPath.prefix(instance)
                index = steps.firstIndex { $0.key.hasPrefix(prefix) } ?? at ?? index
            case .back:
                // Back goes to the previous question that takes an answer, past the notes.
                let previous = steps[..<(at ?? min(index, steps.count))].lastIndex { step in
                    guard case .slot(let slot, _) = step else { return false }
                    return slot.question.type.takesAnswer && isAsked(slot)
                }
                if let previous { index = previous } else {
                    prompter.say("This is the first question.")
                    index = at ?? index
                }
            case .exit:
                finish()
                return false
            }
        }
        return try reviewLoop()
    }

    /// Shows the headings of `headings` that were not shown just before (a group or instance begins).
    mutating func showHeadings(_ headings: [String]) {
        var common = 0
        while common < headings.count, common < shownHeadings.count, headings[common] == shownHeadings[common] { common += 1 }
        for (depth, heading) in headings.enumerated().dropFirst(common) {
            prompter.say("")
            prompter.say(String(repeating: "  ", count: depth) + "▸ " + heading)
        }
        shownHeadings = headings
    }

    mutating func ask(_ step: FillStep) throws -> Step {
        switch step {
        case .slot(let slot, let headings):
            if slot.question.type.takesAnswer, !isAsked(slot) { return .next }
            showHeadings(headings)
            return try ask(slot)
        case .add(let group, let parent, let count, let headings):
            showHeadings(headings)
            return try askToAdd(group, parent: parent, count: count)
        }
    }

    /// An open repeat's question: "Add a pump?" before its first instance, "Add another pump?"
    /// after the last; y adds one (and its questions are asked), n or Enter goes on.
    mutating func askToAdd(_ group: QuestionGroup, parent: [InstanceStep], count: Int) throws -> Step {
        let label = DisplayText.escaped(group.label)
        let countKey = AnswerPath.countKey(group.id, in: parent)
        prompter.say("")
        if count > 0 { prompter.say("\(label): \(Format.plural(count, "instance")) so far (\(DisplayText.escaped(countKey))).") }
        while true {
            guard let line = prompter.ask(count == 0 ? "Add a \(label)? (y/n) > " : "Add another \(label)? (y/n) > ") else { return .exit }
            switch line.trimmingCharacters(in: .whitespaces).lowercased() {
            case "y", "yes":
                let name = form.name
                let (added, number) = try context.locked { try $0.addInstance(name, repeat: countKey) }
                form = added
                return .added(parent + [InstanceStep(group.id, number)])
            case "n", "no", "": return .next
            case ":b", ":back": return .back
            case ":x", ":exit", ":save", ":q", ":quit": return .exit
            default:
                try refuse(AnswerError(question: countKey, rule: "type y to add \(count == 0 ? "one" : "another"), n to go on (or :b, :x)"))
            }
        }
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

    /// The review table; a number (or a path) reopens that question, :s submits, :x or Enter
    /// saves and exits.
    mutating func reviewLoop() throws -> Bool {
        while true {
            prompter.say("")
            prompter.say(ReviewText.render(form, media: context.workflow.media(of: form, at: location), history: false))
            prompter.say("")
            let slots = FormOutline(form).slots
            let count = slots.count
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
            let typed = line.trimmingCharacters(in: .whitespaces)
            let chosen: (number: Int, slot: AnswerSlot)
            if let number = Int(trimmed), (1...max(count, 1)).contains(number), number <= count {
                chosen = (number, slots[number - 1])
            } else if let position = slots.firstIndex(where: { $0.key == typed }) {
                chosen = (position + 1, slots[position])
            } else {
                try refuse(FillError.notAQuestionNumber(line: trimmed, count: count))
                continue
            }
            if chosen.slot.question.type.takesAnswer, !isAsked(chosen.slot) {
                prompter.say("Question \(chosen.number) is not asked now: it is not relevant, or its value is calculated or read-only.")
                continue
            }
            shownHeadings = []
            if case .exit = try ask(.slot(chosen.slot, headings: [])) {
                finish()
                return false
            }
        }
    }

    func finish() {
        let open = form.openSlots.count
        let drafts = form.slots.filter { form.answer(for: $0.key).draft != nil }.count
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

    /// Whether form logic asks the answer now (relevant, neither calculated nor read-only);
    /// every question of a template without logic is asked.
    func isAsked(_ slot: AnswerSlot) -> Bool {
        !form.template.hasLogic || FormLogic(template: form.localizedTemplate).isAsked(slot, in: form)
    }

    /// The lines shown before the answer: `QuestionPrompt`'s, the heading naming the answer's
    /// path and its place among the form's answers when the template has groups.
    func promptLines(_ slot: AnswerSlot) -> [String] {
        let template = form.localizedTemplate
        var lines = QuestionPrompt.lines(for: slot.question, index: slot.index, count: template.questions.count)
        guard !template.groups.isEmpty, !lines.isEmpty else { return lines }
        let slots = form.slots
        let number = (slots.firstIndex { $0.key == slot.key } ?? slot.index) + 1
        lines[0] = "Question \(number) of \(slots.count) [\(DisplayText.escaped(slot.key))] — \(slot.question.typeDescription)"
        return lines
    }

    mutating func ask(_ slot: AnswerSlot) throws -> Step {
        let question = slot.question
        // Form logic: a question that is not relevant now, or is calculated or read-only, is not asked.
        if question.type.takesAnswer, !isAsked(slot) { return .next }
        let rules = Workflow.rules(for: slot, in: form)
        let current = form.answer(for: slot.key)
        prompter.say("")
        for line in promptLines(slot) {
            prompter.say(line)
        }
        if let flag = form.flag(at: slot.key) {
            let state = form.isAnswered(flag) ? "answered" : "not answered yet"
            prompter.say("Flagged by \(DisplayText.escaped(flag.by)): \(DisplayText.escaped(flag.note)) (\(state))")
        }
        // A note is shown and passed: nothing to answer.
        guard question.type.takesAnswer else { return .next }
        let labels = question.type.completions
        if let value = current.value { prompter.say("Current answer: \(ReviewText.display(value, question: question))") }
        if let comment = current.comment { prompter.say("Comment: \(DisplayText.escaped(comment, keepingNewlines: true))") }
        if let line = imageLine(question) { prompter.say(line) }
        if question.logic.choiceFilter != nil, let offered = FormLogic(template: form.localizedTemplate).choiceNames(slot, in: form) {
            let labels = (question.type.filterableChoices ?? []).filter { offered.contains($0.name) }.map(\.label)
            prompter.say("Offered here: " + DisplayText.escaped(labels.isEmpty ? "none" : labels.joined(separator: ", ")))
        }
        if !current.media.isEmpty { prompter.say("Media: \(DisplayText.escaped(current.media.joined(separator: ", ")))") }
        if let grid = question.type.grid { return try askTable(slot, grid: grid, rules: rules) }
        if let media = question.type.answerMedia { return try askFiles(slot, media, rules: rules) }

        var pendingComment: String?
        /// A line typed at the keep-or-clear question that is a new answer: read as if typed here.
        var typedAhead: String?
        while true {
            let current = form.answer(for: slot.key)
            guard let line = typedAhead ?? prompter.ask(QuestionPrompt.answerPrompt(for: question), completing: labels) else {
                return try saveThenExit(slot, pendingComment)
            }
            typedAhead = nil
            var input = FillInput(line)
            // Enter on an answered question, on a terminal, asks before it goes on: Enter again
            // keeps the answer (what Enter always did), `clear` withdraws it, anything else is a
            // new answer. Piped, an empty line keeps the answer without asking.
            if input == .next, let old = current.value, prompter.interactive {
                let shown = ReviewText.display(old, question: question)
                guard let reply = prompter.ask("Enter keeps \(shown); type clear to withdraw it, or a new answer > ", completing: labels) else {
                    return try saveThenExit(slot, pendingComment)
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
                    if !prompter.interactive, let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                    try refuse(GPSFixError(underlying: error, typed: "latitude longitude [altitude] [accuracy], e.g. 19.4326 -99.1332"))
                    continue
                } catch {
                    if !prompter.interactive, let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
            } else {
            switch input {
            case .back:
                if pendingComment != nil { prompter.say("The comment was not saved (:b goes back without saving).") }
                return .back
            case .saveAndExit: return try saveThenExit(slot, pendingComment)
            case .help:
                showHelp(question)
                continue
            case .image:
                showImage(question)
                continue
            case .scan(let path):
                do {
                    try scan(slot, path, rules: rules)
                } catch {
                    if !prompter.interactive, let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
                if let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                return .next
            case .comment(let text):
                pendingComment = text
                prompter.say(text.isEmpty ? "Comment removed (saved with Next)." : "Comment noted (saved with Next).")
                continue
            case .clear:
                try clearAnswer(slot, pendingComment)
                pendingComment = nil
                continue
            case .next:
                value = nil
            case .answer(let text):
                do {
                    let typed = try rules.value(fromLine: text)
                    // A constraint's message is shown at once, and the question asked again.
                    if form.template.hasLogic, let message = FormLogic(template: form.localizedTemplate).constraintProblem(slot, value: typed, in: form) {
                        throw rules.refuse(message)
                    }
                    value = typed
                } catch {
                    // Piped input stops here; the comment typed before the bad line is kept.
                    if !prompter.interactive, let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
            }
            }
            let comment = pendingComment ?? current.comment ?? ""
            let required = question.logic.isEmpty ? nil : FormLogic(template: form.localizedTemplate).isRequired(slot, in: form)
            if value == nil && current.value == nil && required == true {
                // Required: a comment alone does not do.
                if !prompter.interactive, let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                try refuse(rules.refuse(FormLogic(template: form.localizedTemplate).requiredMessage(question)))
                continue
            }
            if value == nil && current.value == nil && required == nil && comment.trimmingCharacters(in: .whitespaces).isEmpty {
                try refuse(FillError.needsAnswerOrComment(question: rules.label))
                continue
            }
            if value != nil || pendingComment != nil {
                try save(slot, value: value, comment: pendingComment)
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
    mutating func clearAnswer(_ slot: AnswerSlot, _ pendingComment: String?,
                              hint: String = "Type a new answer, :c TEXT for a comment, or :x to leave it open.") throws {
        let question = slot.question
        let before = form.answer(for: slot.key)
        guard before.value != nil || before.draft != nil else {
            if let pendingComment { try save(slot, value: nil, comment: pendingComment) }
            if question.type.answerMedia != nil {
                return prompter.say("The answer is the attached files: nothing to clear; \(ShellWord.mi("detach", form.name)) MEDIA removes one.")
            }
            return prompter.say("There is no answer to clear.")
        }
        try save(AnswerUpdate(question: slot.key, value: .clear, comment: pendingComment))
        let after = form.answer(for: slot.key)
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
        if let url = templateCache.image(of: question, in: form.localizedTemplate) {
            return "Imagen: \(url.path) (:img opens it)"
        }
        return "Imagen: \(DisplayText.escaped(name)) is not in the template cache — download it with `mi templates` when online"
    }

    func showImage(_ question: Question) {
        guard question.image != nil else { return prompter.say("This question shows no picture.") }
        guard let url = templateCache.image(of: question, in: form.localizedTemplate) else {
            return prompter.say(imageLine(question) ?? "")
        }
        prompter.say(ImageViewer.open(url))
    }

    var templateCache: TemplateCache { TemplateCache(store: context.store, keys: context.configuration.templateKeys) }

    // MARK: - Codes read from photos, files that are the answer

    static let noScanHere = ":scan reads a code from a photo into a one-line answer, not into a table cell."

    /// `:scan PATH`: the code in the photo (zbarimg) becomes the answer, the photo its media.
    mutating func scan(_ slot: AnswerSlot, _ path: String, rules: AnswerRules) throws {
        let code = try ScannedCode.read(path, question: rules.label)
        let name = form.name
        let attached = try context.locked { try $0.attach(name, question: slot.key, files: [URL(fileURLWithPath: path)],
                                                          value: .words([code])) }
        form = try context.locked { try $0.store.load(try $0.resolve(name)) }
        prompter.say("Read \(DisplayText.escaped(code)) from the photo, kept as \(attached.map(\.name).joined(separator: ", ")).")
    }

    /// A question whose answer is its file (a photo): each line is the path of a file to attach
    /// (Tab completes paths), until the question has `maxFiles`; Enter goes on once it has one
    /// (or a comment). The file is copied at once; a refused one (another kind, too many, no
    /// such file) is asked again on a terminal and ends piped input (exit 65 or 66).
    mutating func askFiles(_ slot: AnswerSlot, _ media: MediaAnswer, rules: AnswerRules) throws -> Step {
        let question = slot.question
        var pendingComment: String?
        if media.maxFiles > 1 { prompter.say("Up to \(media.maxFiles) files: one path a line, Enter when done.") }
        while true {
            guard let line = prompter.ask(QuestionPrompt.answerPrompt(for: question), paths: true) else {
                return try saveThenExit(slot, pendingComment)
            }
            switch FillInput(line) {
            case .back:
                if pendingComment != nil { prompter.say("The comment was not saved (:b goes back without saving).") }
                return .back
            case .saveAndExit: return try saveThenExit(slot, pendingComment)
            case .help: showHelp(question)
            case .image: showImage(question)
            case .scan: prompter.say("Type the path of the \(media.kind.rawValue) itself: it is the answer.")
            case .clear:
                prompter.say("The \(media.kind.rawValue) attached is the answer: `\(ShellWord.mi("detach", form.name)) MEDIA` removes one.")
            case .comment(let text):
                pendingComment = text
                prompter.say(text.isEmpty ? "Comment removed (saved with Next)." : "Comment noted (saved with Next).")
            case .next:
                if let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                guard isDone(slot) else {
                    try refuse(FillError.needsFileOrComment(question: rules.label, kind: media.kind.rawValue))
                    continue
                }
                return .next
            case .answer(let text):
                let path = FillInput.path(text)
                let name = form.name
                do {
                    let attached = try context.locked { try $0.attach(name, question: slot.key, files: [URL(fileURLWithPath: path)]) }
                    form = try context.locked { try $0.store.load(try $0.resolve(name)) }
                    for file in attached { prompter.say("Attached \(DisplayText.escaped(path)) as \(file.name) (\(Format.bytes(file.bytes))).") }
                } catch {
                    if !prompter.interactive, let pendingComment { try save(slot, value: nil, comment: pendingComment) }
                    try refuse(error)
                    continue
                }
                if form.answer(for: slot.key).media.count >= media.maxFiles {
                    if let pendingComment { try save(slot, value: nil, comment: pendingComment) }
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
    mutating func askTable(_ slot: AnswerSlot, grid: GridLayout, rules: AnswerRules) throws -> Step {
        let question = slot.question
        let (rows, columns) = (grid.rows, grid.columns)
        let current = form.answer(for: slot.key)
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
                    if !finished { try save(slot, value: try rules.checkTable(cells), comment: nil) }
                    return .next
                case .clear:
                    // The whole table withdrawn: its cells are asked again from the first.
                    try clearAnswer(slot, nil, hint: "Its cells are asked again from the first; :x leaves it open.")
                    cells = rows.map { _ in columns.map { _ -> String? in nil } }
                    stepping = true
                case .back: return .back
                case .saveAndExit: return .exit
                case .comment(let text): try saveTableComment(slot, text)
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
                sayDraftKept(slot, cells: valueCells.count)
                return .exit
            }
            switch FillInput(line) {
            case .back:
                guard position > 0 else {
                    sayDraftKept(slot, cells: valueCells.count)
                    return .back
                }
                stepping = true
                position -= 1
            case .saveAndExit:
                sayDraftKept(slot, cells: valueCells.count)
                return .exit
            case .help:
                showHelp(question)
            case .image:
                showImage(question)
            case .scan:
                prompter.say(FillSession.noScanHere)
            case .comment(let text):
                try saveTableComment(slot, text)
            case .clear:
                try clearAnswer(slot, nil, hint: "Its cells are asked again from the first; :x leaves it open.")
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
                    try saveCells(slot, cells, rules: rules)
                }
                position = following(position)
            }
        }
        try save(slot, value: try rules.checkTable(cells), comment: nil)
        return .next
    }

    /// The cells typed so far: the answer once every cell has a value, else its draft. A table
    /// that was finished before is never made a draft again (its cells all have values).
    mutating func saveCells(_ slot: AnswerSlot, _ cells: [[String?]], rules: AnswerRules) throws {
        if let value = try? rules.checkTable(cells) {
            try save(slot, value: value, comment: nil)
        } else {
            try save(slot, draft: cells)
        }
    }

    /// A comment typed inside a table is saved at once, with the cells typed so far.
    mutating func saveTableComment(_ slot: AnswerSlot, _ text: String) throws {
        try save(slot, value: nil, comment: text)
        prompter.say(text.isEmpty ? "Comment removed." : "Comment saved.")
    }

    func sayDraftKept(_ slot: AnswerSlot, cells: Int) {
        let answer = form.answer(for: slot.key)
        guard answer.draft != nil else { return }
        prompter.say("The table is kept as a draft (\(answer.draftCellCount) of \(cells) cells typed); \(ShellWord.mi("fill", form.name)) goes on from there.")
    }

    // MARK: - Saving

    mutating func saveThenExit(_ slot: AnswerSlot, _ pendingComment: String?) throws -> Step {
        if let pendingComment { try save(slot, value: nil, comment: pendingComment) }
        return .exit
    }

    mutating func save(_ slot: AnswerSlot, value: AnswerValue?, comment: String?) throws {
        try save(AnswerUpdate(question: slot.key, value: value.map { .validated($0) }, comment: comment))
    }

    mutating func save(_ slot: AnswerSlot, draft: [[String?]]) throws {
        try save(AnswerUpdate(question: slot.key, value: .draft(draft)))
    }

    /// Whether the answer at `slot` is done (`FormLogic.isDone` with form logic).
    func isDone(_ slot: AnswerSlot) -> Bool {
        form.template.hasLogic ? FormLogic(template: form.localizedTemplate).isDone(slot, in: form) : form.isDone(slot.question)
    }

    mutating func save(_ update: AnswerUpdate) throws {
        let name = form.name
        form = try context.locked { try $0.answer(name, [update]) }
    }
}
