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
            if global.json {
                try Terminal.json(Output(file: url.path, valid: report.errors.isEmpty,
                                         errors: report.errors.map(\.description),
                                         warnings: report.warnings.map(\.description)))
            } else {
                for problem in report.errors { Terminal.out("error: \(problem)") }
                for problem in report.warnings { Terminal.out("warning: \(problem)") }
                if report.errors.isEmpty {
                    Terminal.out("\(url.path): OK" + (report.warnings.isEmpty ? "" : " (\(Format.plural(report.warnings.count, "warning")))"))
                }
            }
            if !report.errors.isEmpty {
                Terminal.note("\(url.path): \(Format.plural(report.errors.count, "error")) — fix \(report.errors.count == 1 ? "it" : "them") and run `mi config check` again")
                throw ExitCode.failure
            }
        }
    }
}
