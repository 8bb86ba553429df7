import ArgumentParser
import Foundation
import Logging
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// `mi-server backup --config PATH --output FILE|-` and `mi-server backup --verify FILE|-`.
public struct BackupCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write one consistent archive of the server's submissions and templates, or check one.",
        discussion: """
            Safe while the servers run and take uploads: the database is read at one instant \
            (SQLite's online backup; one snapshot on PostgreSQL) and the archive holds every \
            file of exactly the submissions committed then. The archive is a tar stream: \
            mi-backup/format.json, mi-backup/submissions.jsonl (the receipts), templates/…, \
            submissions/<id>/…, and mi-backup/manifest.json with every file's size and SHA-256. \
            The signing key is in it only with --include-secrets; the LDAP and database password \
            files never are. Progress on a terminal; a summary on stderr at the end. \
            --verify reads an archive through and checks every file against its manifest and \
            the receipts, restoring nothing. --config PATH names the Config.plist (found as for \
            `mi` without it). See docs/backups.md.
            """)

    /// `--config PATH`, mi-server's own option (before or after the subcommand's name).
    @ParentCommand var server: ServerCommand
    var config: String? { server.config }

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the archive; - for stdout.", valueName: "file"))
    var output: String?

    @Flag(help: "Include the session signing key (and the signed-out sessions): encrypt such an archive.")
    var includeSecrets = false

    @Option(help: ArgumentHelp("Check an archive (- for stdin) instead of writing one.", valueName: "file"))
    var verify: String?

    public init() {}

    public func validate() throws {
        if verify != nil {
            guard output == nil, !includeSecrets else {
                throw ValidationError("--verify checks an archive: give it alone (no --output or --include-secrets)")
            }
        } else if output == nil {
            throw ValidationError("say where to write the archive: --output FILE (or - for stdout)")
        }
    }

    public func run() async throws {
        ServerCommand.bootstrapLogging(defaultLevel: .warning)
        let logger = Logger(label: "mi-server")
        if let verify {
            try await Self.verify(verify)
            return
        }
        let configuration = try ServerCommand.loadConfiguration(config, logger: logger)
        guard let output else { return }
        do {
            let summary: BackupSummary
            if output == "-" {
                guard isatty(STDOUT_FILENO) == 0 else {
                    throw ValidationError("stdout is a terminal: pipe the archive somewhere (| ssh …, > FILE) or use --output FILE")
                }
                summary = try await ServerBackup(configuration: configuration, includeSecrets: includeSecrets, logger: logger)
                    .write(to: ArchiveOutput(fd: STDOUT_FILENO, name: "stdout"))
            } else {
                summary = try await Self.writeFile(output, configuration: configuration, includeSecrets: includeSecrets, logger: logger)
            }
            FileHandle.standardError.write(Data("mi-server backup: \(summary.line) → \(output == "-" ? "stdout" : output)\n".utf8))
        } catch let error as ValidationError {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch {
            throw ServerCommand.fail(error, message: ServerCommand.describe(error))
        }
    }

    /// Writes the archive beside `path` under a temporary name, syncs it and renames it into
    /// place: a failed backup never leaves a partial archive under the name asked for.
    private static func writeFile(_ path: String, configuration: Configuration, includeSecrets: Bool,
                                  logger: Logger) async throws -> BackupSummary {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BackupError.io(operation: "create", path: temporary.path, reason: String(cString: strerror(errno))) }
        do {
            let summary = try await ServerBackup(configuration: configuration, includeSecrets: includeSecrets, logger: logger)
                .write(to: ArchiveOutput(fd: fd, name: path))
            guard fsync(fd) == 0 else { throw BackupError.io(operation: "sync", path: temporary.path, reason: String(cString: strerror(errno))) }
            close(fd)
            guard rename(temporary.path, url.path) == 0 else {
                throw BackupError.io(operation: "rename", path: temporary.path, reason: String(cString: strerror(errno)))
            }
            try? DurableFile.syncFolder(url.deletingLastPathComponent())
            return summary
        } catch {
            close(fd)
            unlink(temporary.path)
            throw error
        }
    }

    private static func verify(_ path: String) async throws {
        do {
            let input = try openArchive(path)
            defer { if input.fd != STDIN_FILENO { close(input.fd) } }
            let started = Date()
            let progress = BackupProgress(verb: "verify")
            let contents = try await Blocking.run { try ArchiveCheck(input: input, destination: nil, progress: progress).run() }
            let summary = BackupSummary(submissions: contents.receipts.count, files: contents.files.count, bytes: contents.bytes,
                                        seconds: Date().timeIntervalSince(started))
            print("\(path): a good archive of \(contents.format.engine), made \(contents.format.createdAt.formatted(.iso8601)): \(summary.line)\(contents.hasSigningKey ? "; it holds the signing key" : "")")
        } catch {
            throw ServerCommand.fail(error, message: ServerCommand.describe(error))
        }
    }

    /// The archive at `path`, or stdin for `-`.
    static func openArchive(_ path: String) throws -> ArchiveInput {
        if path == "-" { return ArchiveInput(fd: STDIN_FILENO, name: "stdin") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BackupError.io(operation: "open", path: path, reason: String(cString: strerror(errno))) }
        return ArchiveInput(fd: fd, name: path)
    }
}

/// `mi-server restore --config PATH --from FILE|-`.
public struct RestoreCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore an archive of `mi-server backup` into an empty data directory and database.",
        discussion: """
            Server.DataDirectory and Server.TemplatesDirectory must be empty or absent, and the \
            database of Server.Database (SQLite in the data directory, or PostgreSQL) must hold \
            no submissions; the archive may come from either engine. Every file is checked \
            against the manifest and the receipts before anything is made live; a damaged, \
            truncated or inconsistent archive is refused naming the first bad file, and the \
            targets are left as they were. Run it with the servers stopped. --config PATH names \
            the Config.plist (found as for `mi` without it). See docs/backups.md.
            """)

    /// `--config PATH`, mi-server's own option (before or after the subcommand's name).
    @ParentCommand var server: ServerCommand
    var config: String? { server.config }

    @Option(help: ArgumentHelp("The archive to restore; - for stdin.", valueName: "file"))
    var from: String

    public init() {}

    public func run() async throws {
        ServerCommand.bootstrapLogging(defaultLevel: .warning)
        let logger = Logger(label: "mi-server")
        let configuration = try ServerCommand.loadConfiguration(config, logger: logger)
        do {
            let input = try BackupCommand.openArchive(from)
            defer { if input.fd != STDIN_FILENO { close(input.fd) } }
            let summary = try await ServerRestore(configuration: configuration, logger: logger).run(from: input)
            print("mi-server restore: \(summary.line) into \(configuration.server.dataDirectory.path)")
        } catch {
            throw ServerCommand.fail(error, message: ServerCommand.describe(error))
        }
    }
}
