import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Submit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Submit a form for the foreman's review (every question needs an answer or a comment).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form")) var form: String

        func run() throws {
            let context = try Context.technician(global)
            let (location, saved) = try context.run { try $0.submit(form) }
            if global.json {
                try Terminal.json(["id": saved.id.uuidString.lowercased(), "name": saved.name, "status": saved.status.rawValue,
                                   "path": location.relativePath])
            } else {
                Terminal.out("Submitted \(saved.name): it now waits for the foreman's review.")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete one of your incomplete forms with all its media.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form")) var form: String

        func run() throws {
            let context = try Context.technician(global)
            let location = try context.run { try $0.delete(form) }
            if global.json { try Terminal.json(["deleted": location.name]) } else { Terminal.out("Deleted \(location.name).") }
        }
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete incomplete forms older than ExpiryDays now (every command also does this first).")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Only show what would be deleted.") var dryRun = false

        struct Output: Encodable {
            var dryRun: Bool
            var expiryDays: Int
            var forms: [Item]
            struct Item: Encodable { var user: String; var name: String; var id: String; var createdAt: Date }
        }

        func run() throws {
            let context = try Context.anyone(global)
            let days = context.configuration.expiryDays
            let result = try context.run(sweep: false) { workflow in
                try workflow.store.sweep(expiryDays: days, now: workflow.now(), dryRun: dryRun)
            }
            context.report(result.unreadable)
            if global.json {
                try Terminal.json(Output(dryRun: dryRun, expiryDays: days, forms: result.expired.map {
                    .init(user: $0.location.user, name: $0.location.name, id: $0.summary.id.uuidString.lowercased(),
                          createdAt: $0.summary.createdAt)
                }))
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
    }
}
