import ArgumentParser
import MIKit

extension MI {
    struct Fill: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill a form question by question (works typed or with piped input).",
            discussion: """
                At each question type the answer and press Enter (Next saves it). Enter alone keeps the
                current answer. :b goes back without saving, :x saves and exits, ? shows the question's
                help, :c TEXT adds a comment. A question needs an answer or a comment to go on. After the
                last question the review is shown: type a question number to edit it, :s to submit.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The form.", valueName: "form"))
        var form: String

        func validate() throws {
            if global.json { throw ValidationError("fill is interactive and has no --json output; use `mi answer --json`") }
        }

        func run() throws {
            let context = try Context.technician(global)
            var session = try FillSession(context: context, reference: form)
            _ = try session.run()
        }
    }
}
