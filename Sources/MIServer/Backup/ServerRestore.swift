import CMISystem
import Foundation
import Logging
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// `mi-server restore`: an archive of `mi-server backup` into an empty data directory, templates
/// folder and database, on either engine.
///
/// The archive is extracted into a hidden folder inside the data directory and checked whole
/// (`ArchiveCheck`) before anything is made live; then the templates and submission folders are
/// moved into place and the receipts are written into the database in one transaction. When any
/// step refuses or fails, what was made is removed and the targets are as they were.
struct ServerRestore {
    let configuration: Configuration
    let logger: Logger

    func run(from input: ArchiveInput) async throws -> BackupSummary {
        let started = Date()
        let layout = DataLayout(root: configuration.server.dataDirectory)
        let templates = configuration.server.templatesDirectory
        let keyFile = configuration.server.signingKeyFile.map { URL(fileURLWithPath: $0) } ?? layout.signingKey
        try Self.requireEmpty(layout.root, what: "the data directory")
        try Self.requireEmpty(templates, what: "the templates folder")

        let fileManager = FileManager.default
        let madeRoot = !fileManager.fileExists(atPath: layout.root.path)
        let madeTemplates = !fileManager.fileExists(atPath: templates.path)
        var made: [URL] = []
        let staging = layout.root.appendingPathComponent(".restoring-\(UUID().uuidString.lowercased())", isDirectory: true)
        func undo() {
            for url in made.reversed() { try? fileManager.removeItem(at: url) }
            try? fileManager.removeItem(at: staging)
            if madeTemplates { try? fileManager.removeItem(at: templates) } else { Self.empty(templates) }
            if madeRoot { try? fileManager.removeItem(at: layout.root) } else { Self.empty(layout.root) }
        }
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
            made.append(layout.database)
            for suffix in ["-wal", "-shm"] { made.append(URL(fileURLWithPath: layout.database.path + suffix)) }
            let repository = try await openRepository(configuration.server, layout: layout, logger: logger)
            guard try await repository.submissionIDs().isEmpty else {
                throw BackupError.targetNotEmpty("the database of Server.Database: it holds submissions")
            }
            // The review's and the audit log's tables, made as a server makes them; the log empty.
            _ = try await openReviewStore(beside: repository, logger: logger)
            let audit = try await AuditLog.openStore(beside: repository, logger: logger)
            guard try await audit.events(AuditQuery(limit: 1)).isEmpty else {
                throw BackupError.targetNotEmpty("the database of Server.Database: its audit log has rows")
            }
            let progress = BackupProgress(verb: "restore")
            let contents = try await Blocking.run {
                try ArchiveCheck(input: input, destination: staging, progress: progress).run()
            }
            if contents.hasSigningKey && fileManager.fileExists(atPath: keyFile.path) {
                throw BackupError.targetNotEmpty("the signing key \(keyFile.path): it exists — remove it to restore the archive's, or restore without it")
            }
            made.append(contentsOf: [layout.submissions, layout.versions])
            try await Blocking.run {
                // Durable before it is live: one sync of the filesystem rather than one per file.
                let fd = open(staging.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if fd >= 0 {
                    _ = mi_syncfs(fd)
                    close(fd)
                }
                try layout.prepare()
                try Self.move(staging.appendingPathComponent(BackupArchive.templatesFolder), into: templates)
                for (archived, live) in [(BackupArchive.submissionsFolder, layout.submissions), (BackupArchive.versionsFolder, layout.versions)] {
                    let folder = staging.appendingPathComponent(archived)
                    guard FileManager.default.fileExists(atPath: folder.path) else { continue }
                    try FileManager.default.removeItem(at: live)
                    try FileManager.default.moveItem(at: folder, to: live)
                    try DurableFile.syncFolder(layout.root)
                }
            }
            do {
                let dialect: SubmissionDialect = configuration.server.database == .sqlite ? .sqlite : .postgres
                try await repository.restore(contents.receipts, form: { receipt in
                    try FormFile.decode(try DurableFile.contents(
                        atPath: layout.folder(of: receipt).appendingPathComponent(UploadPart.formFilename).path))
                }, also: ArchivedTables.restore(contents.tables, dialect: dialect))
            } catch let error as BackupError {
                throw error
            } catch {
                throw BackupError.database("\(error)")
            }
            if contents.hasSigningKey {
                let key = try DurableFile.contents(atPath: staging.appendingPathComponent(BackupArchive.signingKeyPath).path)
                try DurableFile.create(key, at: keyFile, permissions: 0o600)
            }
            if contents.hasRevokedSessions {
                let revoked = try DurableFile.contents(atPath: staging.appendingPathComponent(BackupArchive.revokedSessionsPath).path)
                try DurableFile.create(revoked, at: layout.revokedSessions, permissions: 0o600)
            }
            try? fileManager.removeItem(at: staging)
            return BackupSummary(submissions: Set(contents.receipts.map(\.id)).count, files: contents.files.count, bytes: contents.bytes,
                                 seconds: Date().timeIntervalSince(started))
        } catch {
            undo()
            throw error
        }
    }

    /// Refuses a folder that exists and holds anything.
    static func requireEmpty(_ folder: URL, what: String) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            if FileManager.default.fileExists(atPath: folder.path) {
                throw BackupError.targetNotEmpty("\(what) \(folder.path): it is not a readable folder")
            }
            return
        }
        if let first = names.sorted().first {
            throw BackupError.targetNotEmpty("\(what) \(folder.path) (it holds \(SafeName.printable(first)))")
        }
    }

    /// Removes everything inside `folder` (it was empty before the restore).
    private static func empty(_ folder: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Moves each entry of `source` (if any) into the empty folder `destination`: a rename, or a
    /// copy when it is on another filesystem.
    private static func move(_ source: URL, into destination: URL) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: destination, withIntermediateDirectories: true)
        guard let names = try? fileManager.contentsOfDirectory(atPath: source.path) else { return }
        for name in names {
            let from = source.appendingPathComponent(name), to = destination.appendingPathComponent(name)
            if rename(from.path, to.path) != 0 {
                guard errno == EXDEV else {
                    throw BackupError.io(operation: "move", path: to.path, reason: String(cString: strerror(errno)))
                }
                try fileManager.copyItem(at: from, to: to)
            }
        }
        try DurableFile.syncFolder(destination)
    }
}
