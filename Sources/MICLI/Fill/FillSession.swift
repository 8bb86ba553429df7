import Foundation
import MIKit

/// `mi fill`: the form question by question. Next saves the answer (form.json is written
/// under the store's lock at every step); Back goes back without saving; :x keeps the form
/// for later. After the last question comes the review, from which any question reopens.
struct FillSession {
    let context: Context
    let prompter = Prompter()
    var location: FormLocation
    var form: Form

    enum Step { case next, back, exit }

    init(context: Context, reference: String) throws {
        self.context = context
        let (location, form) = try context.run { try $0.openForChange(reference, operation: .filled) }
        self.location = location
        self.form = form
    }

    /// Returns true when the form was submitted.
    mutating func run() throws -> Bool {
        let questions = form.template.questions
        prompter.say("\(form.name) — \(form.template.title) (\(Format.plural(questions.count, "question")))")
        prompter.say(FillInput.legend)
        var index = questions.firstIndex { !form.isDone($0) } ?? questions.count
        while index < questions.count {
            switch try ask(index) {
            case .next: index += 1
            case .back:
                if index == 0 { prompter.say("This is the first question.") } else { index -= 1 }
            case .exit:
                finish()
                return false
            }
        }
        return try reviewLoop()
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
                    prompter.say("Cannot submit yet: \(error.localizedDescription)")
                    continue
                }
            }
            guard let number = Int(trimmed), (1...count).contains(number) else {
                prompter.say("Type a question number from 1 to \(count), :s to submit, or press Enter to save and exit.")
                continue
            }
            if case .exit = try ask(number - 1) {
                finish()
                return false
            }
        }
    }

    func finish() {
        let open = form.openQuestions.count
        prompter.say(open == 0
            ? "Saved \(form.name). Every question is done — submit with: mi submit \(form.name)"
            : "Saved \(form.name) (\(open) question(s) still open). Continue with: mi fill \(form.name)")
    }

    // MARK: - One question

    mutating func ask(_ index: Int) throws -> Step {
        let question = form.template.questions[index]
        let rules = Workflow.rules(for: index, in: form.template)
        let current = form.answer(for: question.id)
        prompter.say("")
        prompter.say("Question \(index + 1) of \(form.template.questions.count) [\(question.id)] — \(question.typeDescription)")
        prompter.say(question.text)
        if case .multipleChoice(let options, _) = question.kind {
            for (number, option) in options.enumerated() { prompter.say("  \(number + 1). \(option)") }
        }
        if let value = current.value { prompter.say("Current answer: \(ReviewText.display(value, question: question))") }
        if let comment = current.comment { prompter.say("Comment: \(DisplayText.escaped(comment, keepingNewlines: true))") }
        if !current.media.isEmpty { prompter.say("Media: \(DisplayText.escaped(current.media.joined(separator: ", ")))") }

        var pendingComment: String?
        while true {
            let value: AnswerValue?
            if case .table(let rows, let columns, let noCells) = question.kind {
                guard let result = askTable(rows: rows, columns: columns, noCells: noCells, current: current, rules: rules,
                                            question: question, pendingComment: &pendingComment) else { return .exit }
                switch result {
                case .step(let step) where step == .back: return .back
                case .step: return try saveThenExit(question, pendingComment)
                case .value(let table): value = table
                }
            } else {
                guard let line = prompter.ask(hint(question) + "> ") else { return try saveThenExit(question, pendingComment) }
                switch FillInput(line) {
                case .back: return .back
                case .saveAndExit: return try saveThenExit(question, pendingComment)
                case .help:
                    prompter.say(question.help.map { "Help: \($0)" } ?? "No help for this question.")
                    prompter.say(FillInput.legend)
                    continue
                case .comment(let text):
                    pendingComment = text
                    prompter.say(text.isEmpty ? "Comment removed (saved with Next)." : "Comment noted (saved with Next).")
                    continue
                case .next:
                    value = nil
                case .answer(let text):
                    do {
                        value = try parse(text, question: question, rules: rules)
                    } catch {
                        prompter.say(error.localizedDescription.replacingOccurrences(of: " — nothing was saved", with: "") + " — try again")
                        continue
                    }
                }
            }
            let comment = pendingComment ?? current.comment ?? ""
            if value == nil && current.value == nil && comment.trimmingCharacters(in: .whitespaces).isEmpty {
                prompter.say("Answer the question or add a comment (:c TEXT) before going on.")
                continue
            }
            if value != nil || pendingComment != nil {
                try save(question, value: value, comment: pendingComment)
            }
            return .next
        }
    }

    func hint(_ question: Question) -> String {
        switch question.kind {
        case .multipleChoice(_, let maxAnswers):
            return maxAnswers == 1 ? "Option number " : "Option numbers, comma-separated "
        case .trueFalse: return "true/false "
        case .numeric: return "Number "
        default: return ""
        }
    }

    func parse(_ text: String, question: Question, rules: AnswerRules) throws -> AnswerValue {
        switch question.kind {
        case .multipleChoice:
            var parts = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            let spaced = text.split(separator: " ").map(String.init)
            if parts.count == 1, spaced.count > 1, spaced.allSatisfy({ Int($0) != nil }) { parts = spaced }
            return try rules.choices(parts.filter { !$0.isEmpty })
        default:
            return try rules.value(fromWords: [text])
        }
    }

    enum TableResult { case step(Step), value(AnswerValue) }

    /// Cell by cell, skipping the cells that take no value; Enter keeps a cell's current value.
    func askTable(rows: [String], columns: [String], noCells: Set<Cell>, current: Answer, rules: AnswerRules,
                  question: Question, pendingComment: inout String?) -> TableResult? {
        var existing: [[String?]]?
        if case .table(let cells) = current.value { existing = cells }
        if existing != nil {
            guard let line = prompter.ask("Enter keeps the table, e edits it (or :b/:x/:c TEXT/?) > ") else { return .step(.exit) }
            switch FillInput(line) {
            case .next: return .value(current.value ?? .table([]))
            case .back: return .step(.back)
            case .saveAndExit: return .step(.exit)
            case .comment(let text):
                pendingComment = text
                return .value(current.value ?? .table([]))
            case .help:
                prompter.say(question.help.map { "Help: \($0)" } ?? "No help for this question.")
            case .answer: break
            }
        }
        var table = rows.map { _ in columns.map { _ -> String? in nil } }
        for r in rows.indices {
            for c in columns.indices where !noCells.contains(Cell(row: r, column: c)) {
                let old = existing?[r][c] ?? nil
                while true {
                    let prompt = "  \(rows[r]) · \(columns[c])" + (old.map { " [\($0)]" } ?? "") + ": "
                    guard let line = prompter.ask(prompt) else { return .step(.exit) }
                    switch FillInput(line) {
                    case .back: return .step(.back)
                    case .saveAndExit:
                        prompter.say("The table is not complete, so it was not saved.")
                        return .step(.exit)
                    case .help:
                        prompter.say(question.help.map { "Help: \($0)" } ?? "No help for this question.")
                        continue
                    case .comment(let text):
                        pendingComment = text
                        prompter.say("Comment noted (saved with the table).")
                        continue
                    case .next:
                        guard let old else {
                            prompter.say("This cell needs a value.")
                            continue
                        }
                        table[r][c] = old
                    case .answer(let text): table[r][c] = text
                    }
                    break
                }
            }
        }
        do {
            return .value(try rules.checkTable(table, rows: rows, columns: columns, noCells: noCells))
        } catch {
            prompter.say(error.localizedDescription)
            return .step(.back)
        }
    }

    // MARK: - Saving

    mutating func saveThenExit(_ question: Question, _ pendingComment: String?) throws -> Step {
        if let pendingComment { try save(question, value: nil, comment: pendingComment) }
        return .exit
    }

    mutating func save(_ question: Question, value: AnswerValue?, comment: String?) throws {
        let update = AnswerUpdate(question: question.id, value: value.map { .validated($0) }, comment: comment)
        let name = form.name
        form = try context.locked { try $0.answer(name, [update]) }
    }
}
