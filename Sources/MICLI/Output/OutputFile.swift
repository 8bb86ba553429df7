import Foundation
import MIKit

/// A file a command writes where the user asked (`mi export --output`) or where `mi` chose
/// (`mi print`'s `<form name>.pdf`): one already there is replaced only with `--force`.
enum OutputFile {
    static func checkReplaceable(_ url: URL, force: Bool) throws(OutputFileError) {
        if !force && FileManager.default.fileExists(atPath: url.path) { throw .exists(path: url.path) }
    }
}

/// The output file exists and `--force` was not given.
enum OutputFileError: ClassifiedError, Equatable {
    case exists(path: String)

    // Like a form name already taken: the request names something that exists (65).
    var failureClass: FailureClass { .badData }

    var code: String { "output-exists" }

    var errorDescription: String? {
        switch self {
        case .exists(let path):
            return "\(DisplayText.escaped(path)) already exists — nothing was written; replace it with --force or choose another file with --output"
        }
    }
}
