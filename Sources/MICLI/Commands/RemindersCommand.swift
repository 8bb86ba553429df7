import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct RemindersCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reminders",
            abstract: "Due and upcoming reminders of incomplete forms (a foreman sees everyone's).",
            discussion: "Reminders fall due ReminderDays after a form was started. --ics writes them as an iCalendar file, so a calendar application alerts you even when the terminal is closed.")

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Write the reminders to this iCalendar (.ics) file.", valueName: "file.ics"), completion: .file(extensions: ["ics"]))
        var ics: String?

        struct Output: Encodable { var due: [Reminder]; var upcoming: [Reminder]; var ics: String? }

        func run() throws {
            let context = try Context.anyone(global)
            let now = context.workflow.now()
            let reminders = try context.run(reminders: false) { workflow in try ReminderNotes.reminders(workflow) }
            let due = Reminders.due(reminders, at: now)
            let upcoming = Reminders.upcoming(reminders, at: now)
            if let ics {
                let text = Reminders.iCalendar(due + upcoming, now: now)
                try DurableFile.write(Data(text.utf8), to: URL(fileURLWithPath: ics))
            }
            if global.json {
                try Terminal.json(Output(due: due, upcoming: upcoming, ics: ics))
                return
            }
            if due.isEmpty && upcoming.isEmpty { Terminal.out("No reminders: no incomplete form has one to come.") }
            for (title, list) in [("Due", due), ("Upcoming", upcoming)] where !list.isEmpty {
                Terminal.out("\(title):")
                var table = TableRenderer(["WHEN", "FORM", "USER", "DAY", "EXPIRES", "TEMPLATE"], wrapping: [5], droppable: [3, 4])
                for reminder in list {
                    table.add([Format.date(reminder.dueAt), reminder.formName, reminder.user, String(reminder.day),
                               Format.date(reminder.expiresAt), DisplayText.escaped(reminder.templateTitle)])
                }
                Terminal.out(table)
            }
            if let ics { Terminal.out("Wrote \(due.count + upcoming.count) reminder(s) to \(ics).") }
        }
    }
}

/// Reminders of the actor's incomplete forms (everyone's for a foreman), and the once-a-day
/// note of the due ones before a technician's command.
enum ReminderNotes {
    static func reminders(_ workflow: Workflow) throws -> [Reminder] {
        let user = workflow.actor.role == .foreman ? nil : workflow.actor.name
        let forms = try workflow.store.list(.incomplete, user: user).forms.map(\.summary)
        return Reminders.all(for: forms, reminderDays: workflow.configuration.reminderDays,
                             expiryDays: workflow.configuration.expiryDays)
    }

    /// Says, on stderr, which reminders are due and not yet shown today. The caller holds the lock.
    static func showDue(_ workflow: Workflow) {
        guard let reminders = try? reminders(workflow) else { return }
        let now = workflow.now()
        let log = ReminderLog(file: Identity.sessions.folder.appendingPathComponent("reminders-\(workflow.actor.name).json"))
        let fresh = log.unseen(Reminders.due(reminders, at: now), on: now)
        guard !fresh.isEmpty else { return }
        for reminder in fresh {
            Terminal.note("reminder: \(reminder.formName) (\(DisplayText.escaped(reminder.templateTitle))) was started \(Format.plural(reminder.day, "day")) ago and expires \(Format.date(reminder.expiresAt)) — `\(ShellWord.mi("fill", reminder.formName))`")
        }
        try? log.markSeen(fresh, on: now)
    }
}
