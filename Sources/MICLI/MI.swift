import ArgumentParser
import Foundation

/// `mi`: maintenance-inspection forms at the command line.
public struct MI: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "mi",
        abstract: "Fill, review and submit maintenance-inspection forms — offline first.",
        discussion: """
            A FORM argument is a form's name, user/name (foremen), or an unambiguous prefix (4+ characters) of its id. \
            Every command that uses the store first deletes incomplete forms older than ExpiryDays.

            Exit status: 0 success, 64 wrong command line, 65 bad data (an invalid answer, a malformed file), \
            66 no such form, file or template, 69 refused (a conflict, a busy store, a printer), \
            75 server or directory unreachable (try again), 77 not logged in or wrong role, 78 configuration.
            """,
        version: "0.1.0",
        subcommands: [
            ConfigCommand.self, Login.self, Logout.self, WhoAmI.self, Users.self, Templates.self, New.self, List.self, Fill.self, Answer.self,
            Attach.self, MediaList.self, Detach.self, Review.self, Print.self, Submit.self, Delete.self, Purge.self, RemindersCommand.self,
            Queue.self, Comment.self, Return.self, Assign.self, Upload.self, Stats.self, Simulate.self,
        ]
    )

    public init() {}

    /// Parses the command line, runs the command, and ends the process with the exit status of
    /// the error's class when it fails (see `FailureReport`).
    public static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Before parsing succeeds, `--json` anywhere on the line asks for a JSON error.
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            FailureReport.exit(error, json: json)
        }
    }
}
