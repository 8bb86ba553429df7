import ArgumentParser
import Foundation
import MIKit
import MITransport

extension MI {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a form from a cached template.",
            discussion: """
                A template answered once per person ("oncePerUser") is refused while you have a form of \
                it here, incomplete or submitted, or on the server: when logged in online the server's \
                list is asked and remembered, so the refusal holds offline too.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template's id (see `mi templates`).", valueName: "template"), completion: Completions.templates)
        var template: String

        @Option(help: "The form's name (default: <template>-<date>-<time>).")
        var name: String?


        func run() throws {
            let context = try Context.technician(global)
            try checkServer(context)
            let (_, form) = try context.run { try $0.startForm(templateID: template, name: name, displayName: context.session.displayName) }
            if global.json {
                try Terminal.json(FormSummaryJSON(form.summary, expiry: context.configuration.expiry, now: context.workflow.now()))
            } else {
                Terminal.out("Started \(form.name) (id \(form.id.uuidString.lowercased())) from \(form.template.id) v\(form.template.version), \(Format.plural(form.template.questions.count, "question")).")
                Terminal.out("Fill it with: \(ShellWord.mi("fill", form.name))")
            }
        }

        /// For a once-per-user template, asks the server (when the session has its token) which
        /// forms of it the user has, and remembers them for `startForm`'s rule. Offline, or when
        /// the server cannot answer, what the store remembers decides.
        func checkServer(_ context: Context) throws {
            let cached = try context.locked { try $0.templates.template(id: template) }
            guard cached.oncePerUser, context.session.validServerToken(now: Date()) != nil else { return }
            let listing: [SubmissionSummary]
            do {
                listing = try ServerAccess.client(context).submissions(template: cached.id, user: context.actor.name)
            } catch {
                Terminal.note("could not ask the server for your forms of \(cached.id) (\(error.localizedDescription)) — going by the forms this store knows")
                return
            }
            _ = try context.locked { try $0.rememberOnServer(listing, of: cached, user: context.actor.name) }
        }
    }
}
