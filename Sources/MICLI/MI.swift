import ArgumentParser

/// `mi`: maintenance-inspection forms at the command line.
public struct MI: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "mi",
        abstract: "Fill, review and submit maintenance-inspection forms — offline first.",
        discussion: """
            A FORM argument is a form's name or an unambiguous prefix (4+ characters) of its id.
            Every command that uses the store first deletes incomplete forms older than ExpiryDays.
            """,
        version: "0.1.0",
        subcommands: [
            ConfigCommand.self, Login.self, Logout.self, WhoAmI.self, Users.self, Templates.self, New.self, List.self, Fill.self, Answer.self,
            Attach.self, MediaList.self, Detach.self, Review.self, Print.self, Submit.self, Delete.self, Purge.self, RemindersCommand.self,
            Queue.self, Comment.self, Return.self, Assign.self, Upload.self,
        ]
    )

    public init() {}
}
