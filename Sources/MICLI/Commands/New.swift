import ArgumentParser
import MIKit

extension MI {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a form from a cached template.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template's id (see `mi templates`).", valueName: "template"))
        var template: String

        @Option(help: "The form's name (default: <template>-<date>-<time>).")
        var name: String?

        struct Output: Encodable { var id: String; var name: String; var template: String; var version: Int; var questions: Int }

        func run() throws {
            let context = try Context.technician(global)
            let (_, form) = try context.run { try $0.startForm(templateID: template, name: name, displayName: context.session.displayName) }
            if global.json {
                try Terminal.json(Output(id: form.id.uuidString.lowercased(), name: form.name, template: form.template.id,
                                         version: form.template.version, questions: form.template.questions.count))
            } else {
                Terminal.out("Started \(form.name) (id \(form.id.uuidString.lowercased())) from \(form.template.id) v\(form.template.version), \(Format.plural(form.template.questions.count, "question")).")
                Terminal.out("Fill it with: mi fill \(form.name)")
            }
        }
    }
}
