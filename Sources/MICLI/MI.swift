import ArgumentParser
import Foundation
import MIKit

/// `mi`: maintenance-inspection forms at the command line.
public struct MI: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "mi",
        abstract: "Fill, review and submit maintenance-inspection forms — offline first.",
        discussion: """
            A FORM argument is a form's name (in any case), user/name (foremen), or an unambiguous start of \
            its name or (4+ characters) of its id; a name that matches no form gets the closest names. \
            Every command that uses the store first deletes incomplete forms older than ExpiryDays.

            Exit status: 0 success, 64 wrong command line (also a FORM that matches several forms), 65 bad data (an invalid answer, a malformed file), \
            66 no such form, file or template, 69 refused (a conflict, a busy store, a printer), \
            75 server or directory unreachable (try again), 77 not logged in or wrong role, 78 configuration.
            """,
        version: "0.1.0",
        subcommands: [
            ConfigCommand.self, Login.self, Logout.self, WhoAmI.self, Users.self, Templates.self, Sync.self, New.self, List.self, Fill.self, Answer.self,
            Attach.self, MediaList.self, Detach.self, Review.self, Print.self, Submit.self, Delete.self, Purge.self, RemindersCommand.self,
            Queue.self, Comment.self, Return.self, Assign.self, Upload.self, Stats.self, Export.self, Simulate.self,
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
            try UnknownCommand.check(arguments.first)
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            FailureReport.exit(error, json: json)
        }
    }
}

/// A first word that is no command: ArgumentParser would call it an unexpected argument;
/// `mi fil` is told "did you mean 'fill'?", as a mistyped option is.
struct UnknownCommand: ClassifiedError {
    let typed: String
    let suggestions: [String]

    var failureClass: FailureClass { .usage }
    var code: String { "usage" }
    var errorDescription: String? {
        let guess = Suggestions.didYouMean(suggestions).map { " — \($0)" } ?? ""
        return "unknown command '\(SafeName.printable(typed))'\(guess) (`mi help` lists the commands)"
    }

    /// Every command's name and alias, and `help`.
    static let names: [String] = ["help"] + MI.configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases }

    /// Throws when `first` (the first argument) is meant as a command and is none.
    static func check(_ first: String?) throws {
        guard let first, !first.hasPrefix("-"), !names.contains(first) else { return }
        let starting = names.filter { $0.hasPrefix(first) }
        let close = Suggestions.closest(to: first, among: names)
        throw UnknownCommand(typed: first, suggestions: Array((close + starting.filter { !close.contains($0) }).prefix(3)))
    }
}
