import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct ConfigCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config", abstract: "Work with Config.plist.", subcommands: [Check.self])
    }
}

extension MI.ConfigCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate Config.plist and report every problem at once.")

        @OptionGroup var global: GlobalOptions

        struct Output: Encodable {
            var file: String
            var valid: Bool
            var errors: [String]
            var warnings: [String]
        }

        func run() throws {
            let url = try ConfigurationLoader.locate(
                explicitPath: global.config, environment: ProcessInfo.processInfo.environment,
                currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            let report = ConfigurationLoader.check(url)
            var errors = report.errors
            // The files the settings name are read too: a password file that cannot be read
            // breaks every login, not only the plist.
            if let configuration = report.configuration {
                do {
                    _ = try configuration.ldap.readBindPassword()
                } catch {
                    errors += error.problems
                }
            }
            let warnings = report.warnings
            if global.json {
                try Terminal.json(Output(file: url.path, valid: errors.isEmpty,
                                         errors: errors.map(\.description),
                                         warnings: warnings.map(\.description)))
            } else {
                for problem in errors { Terminal.out("error: \(problem)") }
                for problem in warnings { Terminal.out("warning: \(problem)") }
                if errors.isEmpty {
                    Terminal.out("\(url.path): OK" + (warnings.isEmpty ? "" : " (\(Format.plural(warnings.count, "warning")))"))
                }
            }
            if !errors.isEmpty {
                Terminal.note("\(url.path): \(Format.plural(errors.count, "error")) — fix \(errors.count == 1 ? "it" : "them") and run `mi config check` again")
                throw ExitCode(FailureClass.configuration.exitCode)
            }
        }
    }
}
