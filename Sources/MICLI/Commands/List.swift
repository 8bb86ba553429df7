import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your incomplete and completed forms.")

        @OptionGroup var global: GlobalOptions

        struct Output: Encodable {
            var forms: [FormSummaryJSON]
            var unreadable: [Unreadable]
        }
        struct Unreadable: Encodable { var path: String; var reason: String }

        func run() throws {
            let context = try Context.technician(global)
            let listing = try context.runListing { workflow, swept in
                var all = FormListing()
                for area in Store.Area.allCases {
                    let user = workflow.actor.name
                    let part = try swept?.list(area, user: user) ?? workflow.store.list(area, user: user)
                    all.forms += part.forms
                    all.unreadable += part.unreadable
                }
                return all
            }
            let expiry = context.configuration.expiry
            let now = context.workflow.now()
            let items = listing.forms.map { FormSummaryJSON($0, expiry: expiry, now: now) }.sorted { ($0.status, $0.updatedAt) > ($1.status, $1.updatedAt) }
            context.report(listing.unreadable)
            if global.json {
                try Terminal.jsonListing(Output(forms: items, unreadable: listing.unreadable.map {
                    .init(path: $0.location.relativePath, reason: $0.reason)
                }))
                return
            }
            guard !items.isEmpty else {
                Terminal.out("No forms yet. Start one with `mi new TEMPLATE` (`mi templates` lists them).")
                return
            }
            var table = TableRenderer(["FORM", "STATUS", "TEMPLATE", "DONE", "MEDIA", "UPDATED", "EXPIRES", "ID"],
                                        droppable: [4, 7, 5, 6, 3, 1, 2])
            for item in items {
                let expires = item.daysLeft.map { $0 <= 0 ? "today" : "in \(Format.plural($0, "day"))" } ?? "—"
                table.add([item.name, item.status, "\(DisplayText.escaped(item.template)) v\(item.templateVersion)", "\(item.answeredCount)/\(item.questionCount)",
                           String(item.mediaCount), Format.date(item.updatedAt), expires, String(item.id.prefix(8))])
            }
            Terminal.out(table)
        }
    }
}
