import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MIDirectory
import MIKit
import NIOCore

/// `mi-server [--config PATH]`: finds Config.plist as `mi` does, reads it once, builds the
/// application and runs it until SIGINT/SIGTERM. A wrong command line exits with 64; any other
/// failure is one message on stderr and the exit status of its class (78 for configuration), else 1.
public struct ServerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "mi-server",
        abstract: "Serve the MI templates and receive uploads, as Config.plist says.",
        discussion: """
            Uses Server.Listen, Server.TemplatesDirectory, Server.DataDirectory and LDAP.* from \
            Config.plist, which is found as for `mi`: --config, then $MI_CONFIG, ./Config.plist, \
            ~/.config/mi/Config.plist, /etc/mi/Config.plist. Set LOG_LEVEL (trace, debug, info, \
            notice, warning, error) to change how much is logged.
            """,
        subcommands: [BackupCommand.self, RestoreCommand.self, AuditCommand.self])

    @Option(help: ArgumentHelp("The Config.plist to use.", valueName: "path"))
    var config: String?

    public init() {}

    /// Parses the command line and runs the server: what `main.swift` calls. (By name, `main()`
    /// would be ParsableCommand's synchronous one, which cannot run an async command.)
    public static func start() async {
        do {
            var command = try parseAsRoot()
            if let server = command as? ServerCommand {
                try await server.run()
            } else if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// Logs to stderr at LOG_LEVEL (`defaultLevel` when unset).
    static func bootstrapLogging(defaultLevel: Logger.Level = .info) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? defaultLevel
            return handler
        }
    }

    /// Config.plist found as `mi` finds it (`--config` first), its warnings logged.
    static func loadConfiguration(_ path: String?, logger: Logger) throws -> Configuration {
        do {
            let url = try ConfigurationLoader.locate(explicitPath: path,
                                                     environment: ProcessInfo.processInfo.environment,
                                                     currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            let report = ConfigurationLoader.check(url)
            for warning in report.warnings { logger.warning("Config.plist: \(warning)") }
            return try report.requireConfiguration()
        } catch {
            throw fail(error, message: describe(error))
        }
    }

    public func run() async throws {
        Self.bootstrapLogging()
        let logger = Logger(label: "mi-server")

        let configuration: Configuration
        let directory: any DirectoryService
        do {
            let url = try ConfigurationLoader.locate(explicitPath: config,
                                                     environment: ProcessInfo.processInfo.environment,
                                                     currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            let report = ConfigurationLoader.check(url)
            for warning in report.warnings { logger.warning("Config.plist: \(warning)") }
            configuration = try report.requireConfiguration()
            directory = LDAPDirectory(configuration: try DirectoryConfiguration(configuration.ldap))
        } catch {
            throw Self.fail(error, message: Self.describe(error))
        }

        let listen = configuration.server.listen
        do {
            let application = try await buildApplication(configuration: configuration, directory: directory, logger: logger)
            try await application.runService()
        } catch {
            throw Self.fail(error, message: Self.describeRunError(error, listen: listen))
        }
    }

    static func describeRunError(_ error: any Error, listen: String) -> String {
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE:
                return "cannot listen on \(listen): the address is already in use — stop the other server or change Server.Listen in Config.plist"
            case EACCES:
                return "cannot listen on \(listen): permission denied — use a port above 1023 or give mi-server the right to bind it"
            case EADDRNOTAVAIL:
                return "cannot listen on \(listen): no network interface has that address — fix Server.Listen in Config.plist"
            default:
                return "cannot listen on \(listen): \(error.description) — check Server.Listen in Config.plist"
            }
        }
        return describe(error)
    }

    static func describe(_ error: any Error) -> String {
        (error as? LocalizedError)?.errorDescription ?? String(describing: error)
    }

    /// Writes `mi-server: message` on stderr and returns the exit status to end with.
    static func fail(_ error: any Error, message: String) -> ExitCode {
        FileHandle.standardError.write(Data("mi-server: \(message)\n".utf8))
        return ExitCode((error as? any ClassifiedError)?.failureClass.exitCode ?? EXIT_FAILURE)
    }
}
