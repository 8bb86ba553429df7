import ArgumentParser
import MIKit

extension MI {
    struct Fill: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill a form question by question (works typed or with piped input).",
            discussion: """
                At each question type the answer and press Enter (Next saves it). Enter alone keeps the \
                current answer (on a terminal it asks first: Enter again keeps it, clear withdraws it). \
                :clear withdraws the answer (its comment and media stay). :b goes back without saving, :x saves and exits, ? shows the question's \
                help, :c TEXT adds a comment, :img opens the question's picture (with xdg-open when there is a \
                display; otherwise its path is shown). A question needs an answer or a comment to go on; a note is \
                shown and passed. A table is \
                saved cell by cell as a draft until every cell has a value; inside a table :b goes back one \
                cell, and a finished table being changed stays finished. After the last question the review \
                is shown: type a question number to edit it, :s to submit.

                On a terminal the line can be edited (arrow keys, Home/End, Ctrl-A/E/U/W), ↑ and ↓ recall \
                earlier answers, Tab completes option labels (and today or now for a date or time), and an invalid answer is asked again. \
                Ctrl-C saves what was typed and exits (status 130). With piped input the first invalid \
                line ends fill with its message (status 65); the answers before it stay saved.

                On a location question Enter (while it has no answer) or gps takes a fix from gpsd \
                (Location.GPSD, waiting up to --gps-timeout seconds, the accuracy shown), or type the point: \
                19.4326 -99.1332 [altitude] [accuracy]. A barcode question takes the code typed or scanned; \
                :scan PHOTO reads it from a photo (zbarimg) and keeps the photo. A photo, audio or video \
                question takes the file's path: the attached file is the answer.

                A template with a consent text shows it before the first question and asks for an \
                explicit acceptance (acepto, yes or y); anything else stops without changing the form. \
                --accept-consent accepts it without asking (for scripts).

                A template in several languages is asked in the form's language: the one it was \
                started in (mi new --lang, Fill.Language in Config.plist, else LANG), or --lang, which \
                also changes it for the PDF. Answers are kept by option names, so they do not change.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms)
        var form: String

        @Flag(help: "The respondent accepts the template's consent text without being asked.")
        var acceptConsent = false

        @Option(name: .customLong("gps-timeout"), help: ArgumentHelp("Seconds a location question waits for gpsd's fix.", valueName: "seconds"))
        var gpsTimeout = GPSFix.defaultTimeout

        @Option(name: .customLong("lang"), help: ArgumentHelp("Fill (and print) the form in this language of its template: a name or a code (es, en).", valueName: "language"))
        var language: String?

        func validate() throws {
            if global.json { throw ValidationError("fill is interactive and has no --json output; use `mi answer --json`") }
            guard (1...3600).contains(gpsTimeout) else {
                throw ValidationError("--gps-timeout must be 1 to 3600 seconds, got \(gpsTimeout)")
            }
        }

        func run() throws {
            let context = try Context.technician(global)
            if let language { _ = try context.run { try $0.setLanguage(form, to: language) } }
            var session = try FillSession(context: context, reference: form, acceptConsent: acceptConsent, gpsTimeout: gpsTimeout)
            _ = try session.run()
            if session.interrupted { throw ExitCode(130) }
        }
    }
}
