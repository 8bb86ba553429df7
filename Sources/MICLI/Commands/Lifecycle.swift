import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Submit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Submit a form for the foreman's review (every question needs an answer or a comment).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms) var form: String

        func run() throws {
            let context = try Context.technician(global)
            let (location, saved) = try context.run { try $0.submit(form) }
            if global.json {
                try Terminal.json(["id": saved.id.description, "name": saved.name, "status": saved.status.rawValue,
                                   "path": location.relativePath])
            } else {
                Terminal.out("Submitted \(saved.name): it now waits for the foreman's review.")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete one of your incomplete forms with all its media.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms) var form: String

        func run() throws {
            let context = try Context.technician(global)
            let location = try context.run { try $0.delete(form) }
            if global.json { try Terminal.json(["deleted": location.name]) } else { Terminal.out("Deleted \(location.name).") }
        }
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete incomplete forms older than ExpiryDays now (every command also does this first), or with --simulated the forms made by `mi simulate`.",
            discussion: """
                --simulated deletes every form `mi simulate` made, incomplete or completed: a technician's own, \
                a foreman's of every technician (mi-server refuses simulated forms, so they would otherwise stay \
                in the foreman's queue).
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Only show what would be deleted.") var dryRun = false
        @Flag(help: "Delete the forms made by `mi simulate` (a foreman: everyone's), incomplete and completed.") var simulated = false

        struct Output: Encodable {
            var dryRun: Bool
            /// Absent with --simulated (the forms' age does not matter then).
            var expiryDays: Int?
            /// Why the forms go: `expired` or `simulated`.
            var reason: String
            var forms: [Item]
            struct Item: Encodable { var user: String; var name: String; var id: String; var status: String; var createdAt: Date }
        }

        func run() throws {
            let context = try Context.anyone(global)
            if simulated { return try purgeSimulated(context) }
            let days = context.configuration.expiryDays
            let result = try context.run(sweep: false) { workflow in
                try workflow.store.sweep(expiryDays: days, now: workflow.now(), dryRun: dryRun)
            }
            context.report(result.unreadable)
            if global.json {
                try Terminal.json(Output(dryRun: dryRun, expiryDays: days, reason: "expired", forms: result.expired.map(Self.item)))
                return
            }
            guard !result.expired.isEmpty else {
                Terminal.out("No incomplete form is older than \(days) days.")
                return
            }
            Terminal.out(dryRun ? "Would delete (older than \(days) days):" : "Deleted (older than \(days) days):")
            var table = TableRenderer(["USER", "FORM", "CREATED"])
            for form in result.expired { table.add([form.location.user, form.location.name, Format.date(form.summary.createdAt)]) }
            Terminal.out(table)
        }

        static func item(_ form: ListedForm) -> Output.Item {
            Output.Item(user: form.location.user, name: form.location.name, id: form.summary.id.description,
                        status: form.location.area.status.rawValue, createdAt: form.summary.createdAt)
        }

        func purgeSimulated(_ context: Context) throws {
            let result = try context.run { try $0.purgeSimulated(dryRun: dryRun) }
            context.report(result.unreadable)
            if global.json {
                try Terminal.json(Output(dryRun: dryRun, expiryDays: nil, reason: "simulated", forms: result.removed.map(Self.item)))
                return
            }
            let whose = context.actor.role == .foreman ? "" : " of yours"
            guard !result.removed.isEmpty else {
                Terminal.out("No simulated form\(whose) to delete.")
                return
            }
            Terminal.out((dryRun ? "Would delete" : "Deleted") + " \(Format.plural(result.removed.count, "simulated form"))\(whose) (made by mi simulate):")
            var table = TableRenderer(["USER", "FORM", "STATUS", "CREATED"])
            for form in result.removed {
                table.add([form.location.user, form.location.name, form.location.area.status.rawValue, Format.date(form.summary.createdAt)])
            }
            Terminal.out(table)
        }
    }
}
