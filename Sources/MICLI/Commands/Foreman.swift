import ArgumentParser
import Foundation
import MIDirectory
import MIKit

extension MI {
    struct Queue: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Completed forms waiting for review, and incomplete forms by technician (foremen).")

        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this technician's forms.") var user: String?
        @Option(help: "Only forms of this template.", completion: Completions.templates) var template: String?

        struct Output: Encodable { var completed: [FormSummaryJSON]; var incomplete: [FormSummaryJSON] }

        func run() throws {
            let context = try Context.foreman(global)
            let queue = try context.runListing { try $0.queue(user: user, template: template, listing: $1) }
            context.report(queue.unreadable)
            let now = context.workflow.now()
            let expiry = context.configuration.expiry
            func item(_ form: ListedForm) -> FormSummaryJSON { FormSummaryJSON(form, expiry: expiry, now: now) }
            let output = Output(completed: queue.completed.map(item), incomplete: queue.incomplete.map(item))
            if global.json { try Terminal.jsonListing(output); return }

            Terminal.out("Waiting for review (\(output.completed.count)):")
            if output.completed.isEmpty { Terminal.out("  none") } else {
                var table = TableRenderer(["TECHNICIAN", "FORM", "TEMPLATE", "SUBMITTED", "WAITING", "DONE", "MEDIA", "ID"],
                                            droppable: [6, 7, 4, 5, 3, 2])
                for i in output.completed {
                    let waiting = i.submittedAt.map { Int(now.timeIntervalSince($0) / 86_400) } ?? 0
                    table.add([i.user, i.name, "\(DisplayText.escaped(i.template)) v\(i.templateVersion)", Format.date(i.submittedAt),
                               waiting == 0 ? "today" : Format.plural(waiting, "day"), "\(i.answeredCount)/\(i.questionCount)",
                               String(i.mediaCount), String(i.id.prefix(8))])
                }
                Terminal.out(table)
            }
            Terminal.out("")
            Terminal.out("In progress (\(output.incomplete.count)):")
            if output.incomplete.isEmpty { Terminal.out("  none") } else {
                var table = TableRenderer(["TECHNICIAN", "FORM", "TEMPLATE", "CREATED", "UPDATED", "DONE", "MEDIA", "EXPIRES", "ID"],
                                            droppable: [6, 8, 4, 3, 5, 7, 2])
                var previous: String?
                for i in output.incomplete {
                    let left = i.daysLeft.map { $0 <= 0 ? "today" : "in \(Format.plural($0, "day"))" } ?? "—"
                    table.add([i.user == previous ? "" : i.user, i.name, "\(DisplayText.escaped(i.template)) v\(i.templateVersion)",
                               Format.date(i.createdAt), Format.date(i.updatedAt), "\(i.answeredCount)/\(i.questionCount)",
                               String(i.mediaCount), left + (i.returnedAt == nil ? "" : " (returned)"), String(i.id.prefix(8))])
                    previous = i.user
                }
                Terminal.out(table)
            }
        }
    }

    struct Comment: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a general comment to a completed form (foremen).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form (user/name, name or id prefix).", valueName: "form"), completion: Completions.completedForms) var form: String
        @Argument(help: ArgumentHelp("The comment.", valueName: "text")) var text: [String]

        func run() throws {
            let context = try Context.foreman(global)
            let saved = try context.run { try $0.comment(form, text: text.joined(separator: " ")) }
            if global.json { try Terminal.json(FormJSON(saved)) } else {
                Terminal.out("Comment added to \(saved.user)/\(saved.name) (\(Format.plural(saved.foremanComments.count, "comment")) now).")
            }
        }
    }

    struct Return: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "return",
            abstract: "Send a completed form back to its technician to correct (foremen).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form (user/name, name or id prefix).", valueName: "form"), completion: Completions.completedForms) var form: String
        @Option(help: "What to correct; shown to the technician.") var note: String

        func run() throws {
            let context = try Context.foreman(global)
            let (location, saved) = try context.run { try $0.sendBack(form, note: note) }
            if global.json {
                try Terminal.json(["id": saved.id.description, "user": saved.user, "name": saved.name, "path": location.relativePath])
            } else {
                Terminal.out("Sent \(saved.name) back to \(saved.user); they will see your note at their next login.")
            }
        }
    }

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reassign an incomplete form, with all its media, to another technician (foremen).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form (user/name, name or id prefix).", valueName: "form"), completion: Completions.incompleteForms) var form: String
        @Option(help: ArgumentHelp("The technician to give it to (see `mi users`).", valueName: "user")) var to: String

        func run() throws {
            let context = try Context.foreman(global)
            try SafeName.check(to, as: "user name")
            // The directory decides who may receive a form; asked before taking the store's lock.
            let target = try Directory.service(context.configuration).lookup(user: to)
            try Workflow.checkAssignee(to, role: target?.role)
            guard let target else { return }
            let result = try context.run { try $0.reassign(form, to: target.userName, displayName: target.displayName) }
            if global.json {
                try Terminal.json(["id": result.form.id.description, "from": result.from.relativePath,
                                   "to": result.to.relativePath, "name": result.form.name])
            } else {
                let renamed = result.form.name == result.from.name ? "" : " as \(result.form.name) (\(target.userName) already had a form named \(result.from.name))"
                Terminal.out("Reassigned \(result.from.user)/\(result.from.name) to \(DisplayText.escaped(target.displayName)) (\(target.userName))\(renamed).")
            }
        }
    }
}
