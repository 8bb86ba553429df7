import Crypto
import Foundation
import Logging
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// What a backup or a restore did, for its summary line.
public struct BackupSummary: Sendable, Equatable {
    public var submissions: Int
    public var files: Int
    public var bytes: Int64
    public var seconds: Double

    var line: String {
        let megabytes = Double(bytes) / 1_000_000
        return "\(submissions) submissions, \(files) files, \(String(format: "%.1f", megabytes)) MB in \(String(format: "%.1f", seconds)) s"
    }
}

/// Progress on stderr while it is a terminal: one line rewritten at most five times a second.
final class BackupProgress: @unchecked Sendable {
    private let verb: String
    private let enabled: Bool
    private var last = Date.distantPast

    init(verb: String) {
        self.verb = verb
        enabled = isatty(STDERR_FILENO) == 1
    }

    func update(submissions: Int, of total: Int?, bytes: Int64, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(last) >= 0.2 else { return }
        last = now
        let count = total.map { "\(submissions) of \($0)" } ?? "\(submissions)"
        let text = "\r\(verb): \(count) submissions, \(String(format: "%.1f", Double(bytes) / 1_000_000)) MB\u{1B}[K"
        FileHandle.standardError.write(Data(text.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// `mi-server backup`: one consistent archive of a running server's submissions, templates and
/// (asked for) secrets, written as a tar stream.
///
/// Consistency: the receipts are read at one instant — through SQLite's online backup API into
/// a scratch copy, or in one REPEATABLE READ snapshot on PostgreSQL — and the archive holds the
/// files of exactly those submissions. A submission's folder is placed before its row is
/// committed and never changes after, so every listed file is there and whole; a submission
/// committed after the instant is not listed, so none of its files are taken. Uploads are never
/// waited for: SQLite's backup holds a read lock for the moment the copy takes (readers do not
/// block writers in WAL mode), and PostgreSQL's snapshot blocks nothing.
struct ServerBackup {
    let configuration: Configuration
    let includeSecrets: Bool
    let logger: Logger

    func write(to output: ArchiveOutput) async throws -> BackupSummary {
        let started = Date()
        let layout = DataLayout(root: configuration.server.dataDirectory)
        guard FileManager.default.fileExists(atPath: layout.submissions.path) else {
            throw BackupError.io(operation: "read", path: layout.submissions.path,
                                 reason: "no such folder — check Server.DataDirectory (is this the server's Config.plist?)")
        }
        let repository = try await openRepository(configuration.server, layout: layout, logger: logger)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mi-backup-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch.path + suffix) }
        }
        // The review's and the audit log's tables exist once their stores opened (as a server does).
        _ = try await openReviewStore(beside: repository, logger: logger)
        _ = try await AuditLog.openStore(beside: repository, logger: logger)
        let (receipts, rows) = try await repository.snapshot(scratch: scratch, also: ArchivedTables.selects)
        let tables = try ArchivedTables.contents(rows)
        let current = Set(receipts.map(\.id)).count

        let templates = try Self.templateFiles(configuration.server.templatesDirectory)
        let engine = configuration.server.database == .sqlite ? "sqlite" : "postgres"
        let modified = Int64(started.timeIntervalSince1970)
        let progress = BackupProgress(verb: "backup")
        return try await Blocking.run { [self] in
            var writer = EntryWriter(output: output, modified: modified)
            defer { try? writer.checkDigests() }
            let format = BackupArchive.Format(format: BackupArchive.formatName, version: BackupArchive.version,
                                              createdAt: Date(timeIntervalSince1970: TimeInterval(modified)), engine: engine,
                                              submissions: current, versions: receipts.count - current,
                                              templateFiles: templates.count, secrets: includeSecrets)
            try writer.add(BackupArchive.formatPath, data: try BackupArchive.encoder.encode(format))
            try writer.add(BackupArchive.submissionsPath, data: try BackupArchive.receiptLines(receipts))
            try writer.add(ArchivedTables.reviewPath, data: try ArchivedTables.reviewFile(tables))
            try writer.add(ArchivedTables.auditPath, data: try ArchivedTables.auditFile(tables))
            for (relative, url) in templates {
                try writer.add("\(BackupArchive.templatesFolder)/\(relative)", data: try Self.read(url))
            }
            // Paths joined as text: a URL per file costs more (a stat each) than reading it.
            let root = layout.root.path
            for (index, receipt) in receipts.enumerated() {
                for part in receipt.parts {
                    let path = BackupArchive.path(of: part, in: receipt)
                    try writer.addFile(path, from: root + "/" + path, size: part.size, sha256: part.sha256)
                }
                progress.update(submissions: index + 1, of: receipts.count, bytes: output.written)
            }
            if includeSecrets {
                let key = configuration.server.signingKeyFile.map { URL(fileURLWithPath: $0) } ?? layout.signingKey
                try writer.add(BackupArchive.signingKeyPath, data: try Self.read(key))
                if FileManager.default.fileExists(atPath: layout.revokedSessions.path) {
                    try writer.add(BackupArchive.revokedSessionsPath, data: try Self.read(layout.revokedSessions))
                }
            }
            try writer.finish()
            progress.finish()
            return BackupSummary(submissions: current, files: writer.manifest.count, bytes: output.written,
                                 seconds: Date().timeIntervalSince(started))
        }
    }

    /// Every regular file under the templates folder (relative path, URL), sorted; temporary
    /// files of a publish under way are left out.
    static func templateFiles(_ folder: URL) throws -> [(String, URL)] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        var files: [(String, URL)] = []
        let base = folder.standardizedFileURL.path
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  !DurableFile.isLeftover(temporary: url.lastPathComponent) else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            files.append((String(path.dropFirst(base.count + 1)), url))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    static func read(_ url: URL) throws -> Data {
        do {
            return try DurableFile.contents(atPath: url.path)
        } catch {
            throw BackupError.io(operation: "read", path: url.path, reason: "\(error.localizedDescription)")
        }
    }

    /// Writes entries and remembers each one's size and SHA-256 for the manifest.
    struct EntryWriter {
        let output: ArchiveOutput
        let modified: Int64
        var manifest: [BackupArchive.ManifestEntry] = []

        mutating func add(_ path: String, data: Data) throws {
            try output.write(Tar.header(path: path, size: Int64(data.count), modified: modified))
            try data.withUnsafeBytes { try output.write($0) }
            try output.write(Tar.padding(Int64(data.count)))
            manifest.append(.init(path: path, size: Int64(data.count), sha256: FileDigest.sha256(of: data)))
        }

        /// Files whose SHA-256 the hashing thread is computing: their manifest entry, path, and
        /// the receipt's digest they must have.
        var pending: [(entry: Int, path: String, expected: String)] = []
        let digest = PipelinedDigest()
        var digestStopped = false

        /// Streams a stored file, checking it against its receipt's size on the way and its
        /// SHA-256 (hashed on a second thread while the next chunk is read; a small file on this
        /// one) before the manifest.
        mutating func addFile(_ path: String, from file: String, size: Int64, sha256: String) throws {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw BackupError.storedFileDiffers(path: file, problem: "cannot be read (\(String(cString: strerror(errno))))")
            }
            defer { close(fd) }
            try output.write(Tar.header(path: path, size: size, modified: modified))
            if size <= Int64(PipelinedDigest.inlineBytes) {
                let buffer = digest.inlineBuffer
                try Self.fill(buffer, count: Int(size), from: fd, file: file, size: size)
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<Int(size)])
                try output.write(bytes)
                let computed = Hex.lowercase(SHA256.hash(data: bytes))
                guard computed == sha256 else {
                    throw BackupError.storedFileDiffers(path: file, problem: "has SHA-256 \(computed), its receipt \(sha256)")
                }
            } else {
                var remaining = size
                while remaining > 0 {
                    let (index, buffer) = digest.take()
                    let count = Int(min(Int64(buffer.count), remaining))
                    do {
                        try Self.fill(buffer, count: count, from: fd, file: file, size: size)
                        try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    } catch {
                        digest.giveBack(buffer: index)
                        throw error
                    }
                    remaining -= Int64(count)
                    digest.hash(buffer: index, count: count, endsFile: remaining == 0)
                }
                pending.append((manifest.count, file, sha256))
            }
            var extra: UInt8 = 0
            guard Glibc.read(fd, &extra, 1) == 0 else {
                throw BackupError.storedFileDiffers(path: file, problem: "is longer than its receipt's \(size) bytes")
            }
            try output.write(Tar.padding(size))
            manifest.append(.init(path: path, size: size, sha256: sha256))
        }

        /// Reads exactly `count` bytes of `fd` into `buffer`: a file shorter than its receipt says
        /// or unreadable is named.
        private static func fill(_ buffer: UnsafeMutableRawBufferPointer, count: Int, from fd: Int32, file: String, size: Int64) throws {
            var filled = 0
            while filled < count {
                let read = Glibc.read(fd, buffer.baseAddress! + filled, count - filled)
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else {
                    throw BackupError.storedFileDiffers(path: file, problem: read == 0 ? "is shorter than its receipt's \(size) bytes"
                                                            : "cannot be read (\(String(cString: strerror(errno))))")
                }
                filled += read
            }
        }

        /// Waits for the hashing thread and checks every streamed file against its receipt,
        /// naming the first that differs. Called once, by `finish` or after a failure.
        mutating func checkDigests() throws {
            guard !digestStopped else { return }
            digestStopped = true
            let digests = digest.digests()
            for (file, computed) in zip(pending, digests) where computed != file.expected {
                throw BackupError.storedFileDiffers(path: file.path, problem: "has SHA-256 \(computed), its receipt \(file.expected)")
            }
        }

        /// The manifest (last) and the end of the archive.
        mutating func finish() throws {
            try checkDigests()
            let data = BackupArchive.manifestJSON(manifest)
            try output.write(Tar.header(path: BackupArchive.manifestPath, size: Int64(data.count), modified: modified))
            try data.withUnsafeBytes { try output.write($0) }
            try output.write(Tar.padding(Int64(data.count)))
            try output.write(Tar.end)
            try output.flush()
        }
    }
}
