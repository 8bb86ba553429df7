import Foundation
import Hummingbird
import Logging
import MIDirectory
import MIKit
import NIOCore

/// `mi-server [--config PATH]`: finds Config.plist as `mi` does, builds the application and
/// runs it until SIGINT/SIGTERM. Every failure is one message on stderr and exit status 1.
public enum ServerCommand {
    static let usage = """
        usage: mi-server [--config PATH]

        Serves the MI templates and receives uploads, as Config.plist says (Server.Listen,
        Server.TemplatesDirectory, Server.DataDirectory, LDAP.*). Config.plist is found as for
        `mi`: --config, then $MI_CONFIG, ./Config.plist, ~/.config/mi/Config.plist, /etc/mi/Config.plist.
        Set LOG_LEVEL (trace, debug, info, notice, warning, error) to change how much is logged.
        """

    /// Runs the server; returns the process's exit status.
    public static func main(arguments: [String]) async -> Int32 {
        var explicitPath: String?
        var remaining = arguments.dropFirst()
        while let argument = remaining.popFirst() {
            switch argument {
            case "--config":
                guard let path = remaining.popFirst() else { return fail("--config needs a path\n\n\(usage)", status: 64) }
                explicitPath = path
            case "-h", "--help":
                print(usage)
                return 0
            default:
                if argument.hasPrefix("--config=") {
                    explicitPath = String(argument.dropFirst("--config=".count))
                } else {
                    return fail("unknown argument \"\(argument)\"\n\n\(usage)", status: 64)
                }
            }
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
            return handler
        }
        let logger = Logger(label: "mi-server")

        let configuration: Configuration
        let directory: any DirectoryService
        do {
            let url = try ConfigurationLoader.locate(explicitPath: explicitPath,
                                                     environment: ProcessInfo.processInfo.environment,
                                                     currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            let report = ConfigurationLoader.check(url)
            for warning in report.warnings { logger.warning("Config.plist: \(warning)") }
            configuration = try ConfigurationLoader.load(from: url)
            directory = try makeDirectory(configuration)
        } catch {
            return fail(describe(error))
        }

        let listen = configuration.server.listen
        do {
            let application = try await buildApplication(configuration: configuration, directory: directory, logger: logger)
            try await application.runService()
            return 0
        } catch {
            return fail(describeRunError(error, listen: listen))
        }
    }

    /// The directory `LDAP.*` describes, with the service password read from `LDAP.BindPasswordFile`.
    static func makeDirectory(_ configuration: Configuration) throws -> any DirectoryService {
        let ldap = configuration.ldap
        var bindPassword: String?
        if let file = ldap.bindPasswordFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ServerSetupError("cannot read LDAP.BindPasswordFile \(file) — check that it exists and mi-server's user may read it")
            }
            bindPassword = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        }
        return LDAPDirectory(configuration: DirectoryConfiguration(
            url: ldap.url, startTLS: ldap.startTLS, caFile: ldap.caFile, baseDN: ldap.baseDN,
            userFilter: ldap.userFilter, bindDN: ldap.bindDN, bindPassword: bindPassword,
            foremanGroup: ldap.foremanGroup, groupMemberAttribute: ldap.groupMemberAttribute,
            timeoutSeconds: ldap.timeoutSeconds))
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

    private static func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("mi-server: \(message)\n".utf8))
        return status
    }
}
