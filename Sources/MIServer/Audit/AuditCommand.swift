import ArgumentParser
import Foundation
import Logging
import MIKit

/// `mi-server audit verify --config PATH`.
public struct AuditCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check the server's audit log.",
        subcommands: [AuditVerifyCommand.self])

    @ParentCommand var server: ServerCommand

    public init() {}
}

/// Reads the audit log's head and every row up to it, in order, and checks the hash chain.
public struct AuditVerifyCommand: AsyncParsableCommand {
    /// The exit status when a row is changed or missing (EX_DATAERR).
    public static let brokenStatus: Int32 = 65

    public static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that no row of the audit log was changed or removed.",
        discussion: """
            Safe while the servers run. Reads the log's head (the newest row's seq and SHA-256) \
            and every row up to it in order from the database of Server.Database (SQLite in the \
            data directory, or PostgreSQL), and checks that the rows are numbered 1, 2, 3… \
            without a gap, that each row's sha256 is the SHA-256 of its canonical encoding, that \
            each row's prev_sha256 is the row before's sha256, and that the last row is the one \
            the head records. Exit status 0 when the log is intact (one line on stdout: rows and \
            the last hash); 65 when it is not, with the seq of the first bad row and why on \
            stderr; 78 when Config.plist is wrong or the database cannot be opened. \
            --config PATH names the Config.plist (found as for `mi` without it). See docs/audit.md.
            """)

    @ParentCommand var audit: AuditCommand

    public init() {}

    public func run() async throws {
        // Errors only (unless LOG_LEVEL says otherwise): stderr is for the verdict.
        ServerCommand.bootstrapLogging(defaultLevel: .error)
        let logger = Logger(label: "mi-server")
        let configuration = try ServerCommand.loadConfiguration(audit.server.config, logger: logger)
        let verdict: AuditVerification
        do {
            let layout = DataLayout(root: configuration.server.dataDirectory)
            if configuration.server.database == .sqlite, !FileManager.default.fileExists(atPath: layout.database.path) {
                throw ServerSetupError.database(path: layout.database.path, detail: "no database there — check Server.DataDirectory")
            }
            let repository = try await openRepository(configuration.server, layout: layout, logger: logger)
            verdict = try await AuditLog.openStore(beside: repository, logger: logger).verify()
        } catch {
            throw ServerCommand.fail(error, message: ServerCommand.describe(error))
        }
        switch verdict {
        case .intact(let rows, let last):
            print("audit log intact: \(rows) row(s); last sha256 \(last)")
        case .broken(let seq, let reason):
            FileHandle.standardError.write(Data("mi-server: audit log broken at seq \(seq): \(reason)\n".utf8))
            throw ExitCode(Self.brokenStatus)
        }
    }
}
