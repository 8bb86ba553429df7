import Foundation
import MIKit

/// Who is at the terminal. Until directory login exists the technician names themselves
/// with `--user`; the workflow only ever sees the resulting `Actor`.
enum Identity {
    static func current(options: GlobalOptions, configuration: Configuration) throws -> Actor {
        guard let user = options.user else {
            throw WorkflowError("no user given — pass --user NAME")
        }
        return Actor(name: try SafeName.check(user, as: "user name"), role: .technician)
    }
}
