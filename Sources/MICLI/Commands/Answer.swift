import ArgumentParser
import Foundation
import MIKit
import MIDevices

extension MI {
    struct Answer: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer questions without prompts.",
            discussion: """
                mi answer FORM QUESTION VALUE… [--comment TEXT]
                mi answer FORM QUESTION --from-image PHOTO
                mi answer FORM QUESTION --clear [--comment TEXT]
                mi answer FORM --file answers.json
                mi answer FORM QUESTION --gps [--gps-timeout SECONDS]
                mi answer FORM REPEAT --remove N
                mi answer FORM PATH --reply TEXT

                QUESTION is the question's id or its number from 1, or inside a repeat its path: pumps[2]/amps \
                (instances from 1; pumps[1]/seals[2]/leak in a repeat inside a repeat). Answering a question of the \
                instance one past the last of an open repeat (one without repeatCount) adds that instance; a repeat \
                whose count comes from repeatCount has the instances its count says. --remove N removes instance N \
                of an open repeat (pumps, or pumps[1]/seals for a repeat inside one) with its answers and media; \
                the later instances move up one. VALUE is read as `mi fill` reads a typed \
                line: multiple choice takes option numbers or labels (2, 1,3, "1 3", "Mechanical seal, \
                Casing drain"); true/false takes true/false/yes/no; a number uses a dot (3.5); a table \
                takes one JSON array of rows with null in the cells that take no value. The answers file \
                maps question ids or paths to values (or to {"value": …, "comment": …}); --file - reads it from \
                standard input; it may add instances of an open repeat in order (pumps[1]/…, then pumps[2]/…). Nothing is saved unless every answer is valid.

                A date is 2026-11-26 or today, a time 14:30 or now, a date and time 2026-11-26T14:30 (in the \
                form's time zone, or with an offset: +01:00, Z) or now; a day/month order such as 03/04/2026 is \
                refused, not guessed. A range takes a value on its scale (start to end in steps). A note takes \
                no answer, comment or file.

                A location (geopoint) is typed as latitude longitude [altitude] [accuracy] in decimal degrees \
                and metres (19.4326 -99.1332 2240 5), or taken from gpsd with --gps (Location.GPSD in \
                Config.plist, default 127.0.0.1:2947): the wait shows the accuracy on a terminal and ends after \
                --gps-timeout seconds (default 30); with the question's minAccuracy it waits for a fix that good. \
                No fix saves nothing and exits 75.

                A barcode question takes the code as typed or scanned; --from-image PHOTO reads it from a \
                photo (with zbarimg) and keeps the photo as the question's media. A photo with no code, or \
                with several different codes, saves nothing. A photo, audio or video question's answer is \
                its file: VALUE is the path of the file (or files) to attach, as `mi attach` does.

                --clear withdraws the question's answer (null in an answers file does the same): the value \
                is removed, the comment stays unless --comment "" removes it, the attached media stay \
                (`mi detach FORM MEDIA` removes one), and the audit trail records "cleared". A question \
                left with neither an answer nor a comment is open again.

                A template with a consent text takes no answer until the respondent accepts it: \
                --accept-consent records that acceptance (who, when, the text's SHA-256) with the answers, \
                or alone (`mi answer FORM --accept-consent`). `mi fill` shows the text and asks.

                A form the office sent back (`mi sync`) has flagged questions (`mi review` lists them): each \
                needs its answer changed (value, comment or media) or a reply before `mi submit` takes the \
                form. --reply TEXT records your reply to the flag on PATH (the answer itself is unchanged; \
                the audit trail records it); a later --reply replaces it. The flags and replies go to the \
                office with the form.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms)
        var form: String

        @Argument(help: ArgumentHelp("The question's id, number or path (pumps[2]/amps); with --remove, the repeat (pumps).", valueName: "question"), completion: Completions.questions)
        var question: String?

        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The answer.", valueName: "value"))
        var values: [String] = []

        @Option(help: "A comment for the question (an empty one removes it).")
        var comment: String?

        @Option(help: ArgumentHelp("A JSON file of question id → value (- for standard input).", valueName: "answers.json"), completion: .file())
        var file: String?

        @Option(help: ArgumentHelp("Read the answer from the barcode or QR code in this photo, and keep the photo as the question's media.",
                                   valueName: "photo"), completion: .file())
        var fromImage: String?

        @Flag(help: "Withdraw the question's answer (its comment and media stay).")
        var clear = false

        @Option(help: ArgumentHelp("Reply to the office's flag on the question (a form sent back; `mi review` lists the flags).", valueName: "text"))
        var reply: String?

        @Option(help: ArgumentHelp("Remove instance N of the open repeat named as QUESTION, with its answers and media.", valueName: "n"))
        var remove: Int?

        @Flag(help: "The respondent accepts the template's consent text (see `mi review`).")
        var acceptConsent = false

        @Flag(help: "Answer a location question with a fix from gpsd (Location.GPSD in Config.plist).")
        var gps = false

        @Option(name: .customLong("gps-timeout"), help: ArgumentHelp("Seconds to wait for the GPS fix.", valueName: "seconds"))
        var gpsTimeout = GPSFix.defaultTimeout

        /// The value's words without the `--` that lets a value start with a dash (`mi answer F q
        /// -- -3`): ArgumentParser hands the terminator on with the unrecognized words.
        var answerWords: [String] {
            guard let terminator = values.firstIndex(of: "--") else { return values }
            var words = values
            words.remove(at: terminator)
            return words
        }

        func validate() throws {
            if reply != nil {
                guard question != nil, answerWords.isEmpty, file == nil, comment == nil, !clear, !gps, fromImage == nil,
                      remove == nil, !acceptConsent else {
                    throw ValidationError("--reply answers one flag: mi answer FORM PATH --reply TEXT (no value, --comment, --clear, --file, --gps, --from-image or --remove)")
                }
                return
            }
            if remove != nil {
                guard question != nil, answerWords.isEmpty, file == nil, comment == nil, !clear, !gps, fromImage == nil, !acceptConsent else {
                    throw ValidationError("--remove takes only the repeat: mi answer FORM REPEAT --remove N (no value, --comment, --clear, --file, --gps or --from-image)")
                }
                return
            }
            if clear, !answerWords.isEmpty {
                throw ValidationError("give either a value or --clear, not both")
            }
            if clear, gps || fromImage != nil {
                throw ValidationError("give either --clear or --gps/--from-image, not both")
            }
            if gps, fromImage != nil { throw ValidationError("give either --gps or --from-image, not both") }
            if gps {
                guard file == nil, question != nil, answerWords.isEmpty else {
                    throw ValidationError("--gps answers one location question: mi answer FORM QUESTION --gps (no value, no --file)")
                }
            }
            guard (1...3600).contains(gpsTimeout) else {
                throw ValidationError("--gps-timeout must be 1 to 3600 seconds, got \(gpsTimeout)")
            }
            if gps { return }
            if fromImage != nil {
                guard file == nil, question != nil else { throw ValidationError("--from-image reads the answer to one question: mi answer FORM QUESTION --from-image PHOTO") }
                guard answerWords.isEmpty else { throw ValidationError("give either a value or --from-image, not both") }
                return
            }
            if file != nil {
                if question != nil || !answerWords.isEmpty || comment != nil || clear {
                    throw ValidationError("give either --file or QUESTION VALUE…/--comment/--clear, not both (in the file, null clears an answer)")
                }
            } else if question == nil, acceptConsent {
                return
            } else {
                guard question != nil else { throw ValidationError("say which question to answer, or pass --file answers.json") }
                if answerWords.isEmpty && comment == nil && !clear {
                    throw ValidationError("give a value for question \(question ?? ""), a --comment, or both")
                }
            }
        }

        func run() throws {
            let context = try Context.technician(global)
            if let question, let reply { return try replyToFlag(context, question: question, text: reply) }
            if let question, let remove { return try removeInstance(context, repeat: question, number: remove) }
            if let question, fromImage != nil || !answerWords.isEmpty, let attached = try attachFiles(context, question) {
                return try report(attached.form, attached: attached.files)
            }
            let updates: [AnswerUpdate]
            if let file {
                updates = try Workflow.updates(fromAnswersFile: try Self.read(file))
            } else if gps, let question {
                updates = [try fix(question, context: context)]
            } else if let question {
                let words = answerWords
                let input: AnswerUpdate.Input? = clear ? .clear : words.isEmpty ? nil : .words(words)
                updates = [AnswerUpdate(question: question, value: input, comment: comment)]
            } else {
                updates = []
            }
            let before = clear ? try context.run { try $0.store.load($0.resolve(form)) } : nil
            let saved = try context.run { try $0.answer(form, updates, acceptingConsent: acceptConsent) }
            if global.json {
                try Terminal.json(FormJSON(saved))
            } else {
                let done = saved.answerableCount - saved.openSlots.count
                if acceptConsent, let consent = saved.consent {
                    Terminal.out("Consent accepted by \(consent.by) (text SHA-256 \(consent.sha256)).")
                } else if acceptConsent, updates.isEmpty {
                    Terminal.out("Template \(saved.template.id) asks no consent: nothing to accept.")
                }
                var resolved = saved
                if clear, let question, let slot = try? Workflow.slot(question, in: &resolved) {
                    let id = slot.key
                    let had = before.map { $0.answer(for: id).value != nil || $0.answer(for: id).draft != nil } ?? true
                    let media = saved.answer(for: id).media.count
                    let kept = media == 0 ? "" : " (its \(Format.plural(media, "media file")) kept; `\(ShellWord.mi("detach", saved.name))` MEDIA removes one)"
                    let filesAreTheAnswer = slot.question.type.answerMedia != nil
                    if had {
                        Terminal.out("Cleared the answer to \(DisplayText.escaped(id)) in \(saved.name)\(kept) (\(done) of \(saved.answerableCount) questions done).")
                    } else if filesAreTheAnswer {
                        Terminal.out("The answer to \(DisplayText.escaped(id)) is its attached files: nothing to clear; `\(ShellWord.mi("detach", saved.name))` MEDIA removes one (`\(ShellWord.mi("media", saved.name))` lists them).")
                    } else {
                        Terminal.out("\(DisplayText.escaped(id)) in \(saved.name) had no answer: nothing to clear.")
                    }
                } else if !updates.isEmpty {
                    Terminal.out("Saved \(Format.plural(updates.count, "answer")) in \(saved.name) (\(done) of \(saved.answerableCount) questions done).")
                }
            }
        }

        /// The answer to a location question from gpsd, waiting for the accuracy it asks
        /// (`QuestionType.positionFix`).
        /// Taken outside the store's lock (the wait may be long); the value then goes through the
        /// question's own rules like a typed one.
        func fix(_ reference: String, context: Context) throws -> AnswerUpdate {
            let (_, current) = try context.run { try $0.openForChange(form) }
            var grown = current
            let slot = try Workflow.slot(reference, in: &grown, adding: true)
            let question = slot.question
            guard let wanted = question.type.positionFix else {
                throw ValidationError("--gps answers a location question; \(slot.key) is a \(question.typeDescription) question")
            }
            do {
                let point = try GPSFix.take(context.configuration, accuracy: wanted.accuracy, timeout: gpsTimeout)
                return AnswerUpdate(question: slot.key, value: .json(point.json), comment: comment)
            } catch let error as GPSDError {
                throw GPSFixError(underlying: error, typed: ShellWord.mi("answer", current.name, slot.key, "LATITUDE", "LONGITUDE"))
            }
        }

        /// `--from-image`: the code read from the photo becomes the answer and the photo its media.
        /// A question whose answer is its files (a photo question): the words are the files'
        /// paths, attached. Nil for a value to save as typed. The comment, if any, is saved after.
        func attachFiles(_ context: Context, _ question: String) throws -> (form: MIKit.Form, files: [MediaFile])? {
            try context.run { workflow -> (form: MIKit.Form, files: [MediaFile])? in
                let location = try workflow.resolve(form)
                var loaded = try workflow.store.load(location)
                let slot = try Workflow.slot(question, in: &loaded, adding: true)
                let found = slot.question
                let label = Workflow.rules(for: slot, in: loaded).label
                // The comment is checked before the file is copied, so a refused one attaches nothing.
                if let comment { try TextRules.check(comment, field: "comment on \(slot.key)", allowNewlines: true) }
                let files: [MediaFile]
                if let fromImage {
                    if let media = found.type.answerMedia {
                        throw AnswerError(question: label, rule: "a \(media.kind.rawValue) question's answer is the file itself: \(ShellWord.mi("answer", form, slot.key, fromImage)) attaches it")
                    }
                    let code = try ScannedCode.read(fromImage, question: label)
                    files = try workflow.attach(form, question: slot.key, files: [URL(fileURLWithPath: fromImage)],
                                                value: .words([code]), acceptingConsent: acceptConsent)
                } else if found.type.answerMedia != nil {
                    files = try workflow.attach(form, question: slot.key, files: answerWords.map { URL(fileURLWithPath: $0) },
                                                acceptingConsent: acceptConsent)
                } else {
                    return nil
                }
                var saved = try workflow.store.load(try workflow.resolve(form))
                if let comment {
                    saved = try workflow.answer(form, [AnswerUpdate(question: slot.key, value: nil, comment: comment)])
                }
                return (saved, files)
            }
        }

        /// `--remove N`: the instance goes with its answers and media (`Workflow.removeInstance`);
        /// says what went.
        func removeInstance(_ context: Context, repeat reference: String, number: Int) throws {
            let (before, saved) = try context.run { workflow -> (MIKit.Form, MIKit.Form) in
                let before = try workflow.store.load(try workflow.resolve(form))
                return (before, try workflow.removeInstance(form, repeat: reference, number: number))
            }
            if global.json { return try Terminal.json(FormJSON(saved)) }
            let instance = "\(reference)[\(number)]"
            let prefix = instance + "/"
            let gone = before.answers.filter { $0.key.hasPrefix(prefix) }
            let answers = gone.values.filter { $0.value != nil || $0.comment != nil }.count
            let media = gone.values.flatMap(\.media).sorted()
            var what = [Format.plural(answers, "answer")]
            if !media.isEmpty { what.append("\(Format.plural(media.count, "media file")) (\(DisplayText.escaped(media.joined(separator: ", "))))") }
            let left = saved.repeats[reference] ?? 0
            let later = number <= left ? "; the later instances moved up one" : ""
            let done = saved.answerableCount - saved.openSlots.count
            Terminal.out("Removed \(DisplayText.escaped(instance)) from \(saved.name) with \(what.joined(separator: " and "))"
                         + " (\(DisplayText.escaped(reference)) has \(Format.plural(left, "instance")) now\(later); \(done) of \(saved.answerableCount) questions done).")
        }

        /// `--reply TEXT`: the reply to the office's flag on `question` (`Workflow.reply`).
        func replyToFlag(_ context: Context, question: String, text: String) throws {
            let saved = try context.run { try $0.reply(form, question: question, text: text) }
            if global.json { return try Terminal.json(FormJSON(saved)) }
            let waiting = saved.unansweredFlags.count
            let left = waiting == 0 ? "every flag is answered" : "\(Format.plural(waiting, "flag")) still to answer"
            Terminal.out("Replied to the flag on \(DisplayText.escaped(question)) in \(saved.name) (\(left)).")
        }

        func report(_ saved: MIKit.Form, attached: [MediaFile]) throws {
            if global.json { return try Terminal.json(FormJSON(saved)) }
            for media in attached {
                let value = saved.answer(for: media.questionID).value.map { " with the answer \(DisplayText.escaped($0.display))" } ?? ""
                Terminal.out("Attached \(media.name) (\(media.kind.rawValue), \(Format.bytes(media.bytes))) to question \(DisplayText.escaped(media.questionID))\(value).")
            }
            let done = saved.answerableCount - saved.openSlots.count
            Terminal.out("Saved in \(saved.name) (\(done) of \(saved.answerableCount) questions done).")
        }

        /// The answers file's bytes; `-` and `/dev/stdin` are standard input, read to its end.
        static func read(_ file: String) throws -> Data {
            do {
                if file == "-" || file == "/dev/stdin" { return try FileHandle.standardInput.readToEnd() ?? Data() }
                return try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw AnswersFileError.unreadable(path: file == "-" ? "standard input" : file,
                                                  reason: (error as NSError).localizedDescription)
            }
        }
    }
}
