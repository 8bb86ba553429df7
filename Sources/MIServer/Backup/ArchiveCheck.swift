import Crypto
import Foundation
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// Reads an archive of `mi-server backup` once, start to end — extracting each file under a
/// folder when given one — and checks it: every file against the manifest, every submission's
/// files against its receipt, every form.json as a form. The first file that fails is named.
struct ArchiveCheck {
    /// What a good archive holds.
    struct Contents {
        var format: BackupArchive.Format
        /// The receipts, in the order stored.
        var receipts: [Receipt]
        /// The review's and the audit log's rows (none in an archive made before they were kept).
        var tables = ArchivedTables.Contents()
        /// Every file but the manifest, in the archive's order.
        var files: [BackupArchive.ManifestEntry]
        var bytes: Int64
        var hasSigningKey: Bool { files.contains { $0.path == BackupArchive.signingKeyPath } }
        var hasRevokedSessions: Bool { files.contains { $0.path == BackupArchive.revokedSessionsPath } }
    }

    let input: ArchiveInput
    /// Where files are extracted (made by the caller), or nil to only check.
    let destination: URL?
    let progress: BackupProgress

    func run() throws -> Contents {
        var files: [BackupArchive.ManifestEntry] = []
        var seen = Set<String>()
        var format: BackupArchive.Format?
        var receipts: [Receipt]?
        var tables = ArchivedTables.Contents()
        var manifest: BackupArchive.Manifest?
        var formProblems: [String: String] = [:]
        var pendingPath: String?
        var pendingSize: Int64?
        var bytes: Int64 = 0
        var submissions = 0

        while true {
            guard let block = try input.readExactly(Tar.blockSize) else { throw BackupError.truncated(path: files.last?.path) }
            let header: Tar.Header
            switch Tar.parse(block) {
            case .success(let parsed): header = parsed
            case .failure(let problem):
                if files.isEmpty && format == nil { throw BackupError.notABackup("it is not a tar archive (\(problem))") }
                throw BackupError.damaged(path: files.last?.path ?? "the first file",
                                          problem: "is followed by a damaged tar header (\(problem))")
            }
            switch header {
            case .end:
                guard manifest != nil else { throw BackupError.truncated(path: files.last?.path) }
                guard let format, let receipts, let manifest else { throw BackupError.notABackup("it has no \(BackupArchive.formatPath)") }
                let contents = Contents(format: format, receipts: receipts, tables: tables, files: files, bytes: bytes)
                try Self.check(contents, manifest: manifest, formProblems: formProblems)
                progress.finish()
                return contents
            case .pax(let size):
                guard size < 1 << 20, let body = try input.readExactly(Int(size)), try skipPadding(size),
                      let records = Tar.paxRecords(body) else {
                    throw BackupError.damaged(path: files.last?.path ?? "the first file", problem: "is followed by a damaged pax header")
                }
                pendingPath = records["path"]
                pendingSize = records["size"].flatMap { Int64($0) }
                continue
            case .file(let shortPath, let shortSize):
                let path = pendingPath ?? shortPath
                let size = pendingSize ?? shortSize
                pendingPath = nil
                pendingSize = nil
                if manifest != nil {
                    throw BackupError.damaged(path: path, problem: "comes after the manifest, which must be the last file")
                }
                if format == nil && path != BackupArchive.formatPath {
                    throw BackupError.notABackup("its first file is \(SafeName.printable(path)), not \(BackupArchive.formatPath)")
                }
                if let problem = BackupArchive.problem(path: path) { throw BackupError.damaged(path: path, problem: "cannot be restored: \(problem)") }
                guard seen.insert(path).inserted else { throw BackupError.damaged(path: path, problem: "is in the archive twice") }
                let keep = path.hasPrefix("mi-backup/") || path.hasSuffix("/" + UploadPart.formFilename)
                let (sha256, data) = try read(path: path, size: size, keep: keep)
                switch path {
                case BackupArchive.formatPath:
                    guard let decoded = try? BackupArchive.decoder.decode(BackupArchive.Format.self, from: data),
                          decoded.format == BackupArchive.formatName else {
                        throw BackupError.notABackup("\(BackupArchive.formatPath) is not this format's")
                    }
                    guard decoded.version <= BackupArchive.version else {
                        throw BackupError.notABackup("it is format version \(decoded.version), newer than this mi-server's \(BackupArchive.version) — restore it with a newer mi-server")
                    }
                    format = decoded
                case BackupArchive.submissionsPath:
                    receipts = try Self.receipts(data)
                case ArchivedTables.reviewPath:
                    try ArchivedTables.readReview(data, into: &tables)
                case ArchivedTables.auditPath:
                    try ArchivedTables.readAudit(data, into: &tables)
                case BackupArchive.manifestPath:
                    do {
                        manifest = try BackupArchive.decoder.decode(BackupArchive.Manifest.self, from: data)
                    } catch {
                        throw BackupError.damaged(path: path, problem: "is not a manifest")
                    }
                    continue
                default:
                    if BackupArchive.isFormFile(path) {
                        do {
                            _ = try FormFile.decode(data)
                        } catch {
                            formProblems[path] = "is not a form.json MI can read"
                        }
                        submissions += 1
                    }
                }
                files.append(.init(path: path, size: size, sha256: sha256))
                bytes += size
                progress.update(submissions: submissions, of: format?.submissions, bytes: bytes)
            }
        }
    }

    /// The entry's bytes, hashed, written under `destination` when extracting; `keep` also
    /// returns them (small files the check reads).
    private func read(path: String, size: Int64, keep: Bool) throws -> (String, Data) {
        var hasher = SHA256()
        var kept = Data()
        var fd: Int32 = -1
        if let destination {
            let url = destination.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw BackupError.io(operation: "create", path: url.path, reason: String(cString: strerror(errno))) }
        }
        defer { if fd >= 0 { close(fd) } }
        var remaining = size
        while remaining > 0 {
            var failure: (any Error)?
            let count = try input.read(upTo: Int(min(remaining, 1 << 20))) { bytes in
                hasher.update(bufferPointer: bytes)
                if keep { kept.append(contentsOf: bytes) }
                if fd >= 0 {
                    var offset = 0
                    while offset < bytes.count {
                        let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0 {
                            if errno == EINTR { continue }
                            failure = BackupError.io(operation: "write", path: path, reason: String(cString: strerror(errno)))
                            return
                        }
                        offset += written
                    }
                }
            }
            if let failure { throw failure }
            if count == 0 { throw BackupError.truncated(path: path) }
            remaining -= Int64(count)
        }
        guard try skipPadding(size) else { throw BackupError.truncated(path: path) }
        return (Hex.lowercase(hasher.finalize()), kept)
    }

    private func skipPadding(_ size: Int64) throws -> Bool {
        let padding = Tar.padding(size).count
        if padding == 0 { return true }
        return try input.readExactly(padding) != nil
    }

    private static func receipts(_ data: Data) throws -> [Receipt] {
        let decoder = BackupArchive.decoder
        var receipts: [Receipt] = []
        for (index, line) in data.split(separator: 0x0A).enumerated() {
            do {
                receipts.append(try decoder.decode(Receipt.self, from: Data(line)))
            } catch {
                throw BackupError.damaged(path: BackupArchive.submissionsPath, problem: "line \(index + 1) is not a receipt")
            }
        }
        return receipts
    }

    /// The archive's files against the manifest (in the archive's order, then what the manifest
    /// lists that is missing), then against the receipts.
    static func check(_ contents: Contents, manifest: BackupArchive.Manifest, formProblems: [String: String]) throws {
        var listed: [String: BackupArchive.ManifestEntry] = [:]
        for entry in manifest.files {
            guard listed.updateValue(entry, forKey: entry.path) == nil else {
                throw BackupError.damaged(path: BackupArchive.manifestPath, problem: "lists \(SafeName.printable(entry.path)) twice")
            }
        }
        var archived: [String: BackupArchive.ManifestEntry] = [:]
        for file in contents.files {
            archived[file.path] = file
            guard let entry = listed[file.path] else {
                throw BackupError.damaged(path: file.path, problem: "is in the archive but not in its manifest")
            }
            guard entry.size == file.size else {
                throw BackupError.damaged(path: file.path, problem: "has \(file.size) bytes, its manifest says \(entry.size)")
            }
            guard entry.sha256 == file.sha256 else {
                throw BackupError.damaged(path: file.path, problem: "has SHA-256 \(file.sha256), its manifest says \(SafeName.printable(entry.sha256))")
            }
        }
        for entry in manifest.files where archived[entry.path] == nil {
            throw BackupError.damaged(path: entry.path, problem: "is in the manifest but missing from the archive")
        }
        // The receipts: every part of every stored version is there with the receipt's size and
        // SHA-256, each form's versions are 1, 2, … without a gap, and no file under
        // submissions/ or versions/ belongs to none.
        var owned = Set<String>()
        var versions: [FormID: [Int]] = [:]
        for receipt in contents.receipts {
            let version = receipt.storedVersion
            let which = version > 1 ? "version \(version) of submission \(receipt.id)" : "submission \(receipt.id)"
            guard !(versions[receipt.id] ?? []).contains(version) else {
                throw BackupError.damaged(path: BackupArchive.submissionsPath, problem: "lists \(which) twice")
            }
            versions[receipt.id, default: []].append(version)
            guard receipt.parts.contains(where: { $0.filename == UploadPart.formFilename }) else {
                throw BackupError.damaged(path: BackupArchive.submissionsPath, problem: "lists \(which) without its form.json")
            }
            for part in receipt.parts {
                let path = BackupArchive.path(of: part, in: receipt)
                guard let file = archived[path] else {
                    throw BackupError.damaged(path: path, problem: "is missing (\(which)'s receipt lists it)")
                }
                guard file.size == part.size, file.sha256 == part.sha256 else {
                    throw BackupError.damaged(path: path, problem: "differs from its receipt (\(file.size) bytes, SHA-256 \(file.sha256); the receipt says \(part.size) bytes, \(part.sha256))")
                }
                owned.insert(path)
                if let problem = formProblems[path] { throw BackupError.damaged(path: path, problem: problem) }
            }
        }
        for (id, numbers) in versions where numbers.sorted() != Array(1...numbers.count) {
            throw BackupError.damaged(path: BackupArchive.submissionsPath, problem: "lists versions \(numbers.sorted().map(String.init).joined(separator: ", ")) of submission \(id): some are missing")
        }
        for file in contents.files where !owned.contains(file.path)
            && (file.path.hasPrefix(BackupArchive.submissionsFolder + "/") || file.path.hasPrefix(BackupArchive.versionsFolder + "/")) {
            throw BackupError.damaged(path: file.path, problem: "belongs to no submission of \(BackupArchive.submissionsPath)")
        }
        let superseded = contents.receipts.count - versions.count
        guard versions.count == contents.format.submissions, superseded == contents.format.versions ?? 0 else {
            throw BackupError.damaged(path: BackupArchive.submissionsPath, problem: "lists \(versions.count) submissions and \(superseded) earlier versions, \(BackupArchive.formatPath) says \(contents.format.submissions) and \(contents.format.versions ?? 0)")
        }
    }
}
