import ArgumentParser
import Foundation
import MIKit

/// An error as every `--json` output carries it: `{"code": …, "class": …, "message": …}` — the
/// failed command's `{"error": …}` on stderr, and each failed form of `mi upload --json`.
struct ErrorJSON: Codable, Equatable {
    var code: String
    var `class`: String
    var message: String

    init(_ failure: FailureReport.Described) {
        code = failure.code
        `class` = failure.failureClass.rawValue
        message = failure.message
    }
}

/// How `mi` ends on an error: one message on stderr (`mi: error: …`, red on a terminal), or with
/// `--json` one JSON document `{"error": {"code": …, "class": …, "message": …}}` on stderr; and
/// the exit status of the error's class (sysexits.h), as the README documents.
enum FailureReport {
    /// What an error says to a person and to a script.
    struct Described: Equatable {
        var failureClass: FailureClass
        var code: String
        var message: String
    }

    /// Any error as class, code and message. Errors of MI's libraries carry their class; a
    /// command-line mistake is `usage`; anything else is an internal failure.
    static func describe(_ error: any Error) -> Described {
        if let error = error as? any ClassifiedError {
            return Described(failureClass: error.failureClass, code: error.code,
                             message: error.errorDescription ?? String(describing: error))
        }
        if let error = error as? CocoaError, error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            return Described(failureClass: .notFound, code: "no-such-file", message: error.localizedDescription)
        }
        let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        return Described(failureClass: .internalFailure, code: "internal", message: message)
    }

    /// Ends the process for `error`, thrown by parsing or running a command.
    static func exit(_ error: any Error, json: Bool) -> Never {
        if let code = error as? ExitCode { Foundation.exit(code.rawValue) }
        let described: Described
        if error is any ClassifiedError || error is CocoaError || !isArgumentParserError(error) {
            described = describe(error)
        } else {
            // A command-line mistake, `--help` or `--version`: ArgumentParser knows how to say it.
            let status = MI.exitCode(for: error)
            guard json, status != .success else { MI.exit(withError: error) }
            described = Described(failureClass: .usage, code: "usage", message: MI.message(for: error))
        }
        if json {
            Terminal.errorJSON(described)
        } else {
            Terminal.error(described.message)
        }
        Foundation.exit(described.failureClass.exitCode)
    }

    /// Whether ArgumentParser raised the error (parsing, validation, help, version).
    private static func isArgumentParserError(_ error: any Error) -> Bool {
        error is ValidationError || error is CleanExit || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }
}
