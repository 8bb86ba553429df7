import Foundation
import MIKit

/// What an archive of `mi-server backup` holds, in this order:
///
/// ```
/// mi-backup/format.json          what made it: format version, time, engine, counts
/// mi-backup/submissions.jsonl    every committed submission's receipt, one JSON object a line,
///                                in the order stored, then every version they superseded
///                                (`"version": n`): the database, engine-neutral
/// mi-backup/review.jsonl         the office's review: every event and send-back (`ArchivedTables`)
/// mi-backup/audit.jsonl          the audit log: every row, then its head
/// templates/…                    every file of Server.TemplatesDirectory (pictures too)
/// submissions/<id>/<part>        form.json and media of every submission's first version
/// versions/<id>/<n>/<part>       form.json and media of every later version listed above
/// secrets/signing.key            only with --include-secrets (and revoked-sessions with it)
/// mi-backup/manifest.json        last: every file above with its size and SHA-256
/// ```
///
/// The database part is MI's own: the receipts (id, technician, form name, uploader, time
/// received, every part's name, size and SHA-256). Everything else a database row holds — the
/// summary, the scores, the search text, the once-per-user claim — is computed from form.json
/// by the code that computes it at upload, so the archive restores into either engine.
enum BackupArchive {
    static let formatPath = "mi-backup/format.json"
    static let submissionsPath = "mi-backup/submissions.jsonl"
    static let manifestPath = "mi-backup/manifest.json"
    static let templatesFolder = "templates"
    static let submissionsFolder = "submissions"
    static let versionsFolder = "versions"
    static let signingKeyPath = "secrets/signing.key"
    static let revokedSessionsPath = "secrets/revoked-sessions"
    static let formatName = "mi-server backup"
    static let version = 1

    /// `mi-backup/format.json`.
    struct Format: Codable, Equatable {
        var format: String
        var version: Int
        var createdAt: Date
        /// `sqlite` or `postgres`: where it was made (it restores into either).
        var engine: String
        /// Submissions (their current versions).
        var submissions: Int
        /// Versions they superseded, also in submissions.jsonl (absent: none).
        var versions: Int?
        var templateFiles: Int
        var secrets: Bool
    }

    /// One file of `mi-backup/manifest.json`.
    struct ManifestEntry: Codable, Equatable {
        var path: String
        var size: Int64
        var sha256: String
    }

    struct Manifest: Codable {
        var files: [ManifestEntry]
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// `mi-backup/manifest.json` of `files`, as `encoder` writes a `Manifest` (keys sorted, no
    /// spaces): written directly, since a backup's manifest lists every file and Codable's
    /// encoder costs more than reading the smaller ones.
    static func manifestJSON(_ files: [ManifestEntry]) -> Data {
        var out = Array(#"{"files":["#.utf8)
        out.reserveCapacity(files.count * 140)
        for (index, file) in files.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"path":"#.utf8)
            ListingJSON.writeString(file.path, to: &out)
            out.append(contentsOf: #","sha256":"#.utf8)
            ListingJSON.writeString(file.sha256, to: &out)
            out.append(contentsOf: #","size":"#.utf8)
            out.append(contentsOf: String(file.size).utf8)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return Data(out)
    }

    /// `mi-backup/submissions.jsonl` of `receipts`: one encoded receipt a line, in order, the
    /// lines encoded on every core (Codable's encoder is the slow part of a large backup's start).
    static func receiptLines(_ receipts: [Receipt]) throws -> Data {
        let ranges = WorkPieces.ranges(of: receipts.count, pieces: WorkPieces.cores * 4)
        let slots = Slots<Result<Data, any Error>>(count: ranges.count)
        WorkPieces.run(ranges) { piece, range in
            let encoder = encoder
            slots.set(piece, Result {
                var lines = Data()
                for receipt in receipts[range] {
                    lines.append(try encoder.encode(receipt))
                    lines.append(0x0A)
                }
                return lines
            })
        }
        var all = Data()
        for result in slots.values() { all.append(try result.get()) }
        return all
    }

    /// Where `part` of the stored version `receipt` is in an archive (as in the data directory).
    static func path(of part: Receipt.Part, in receipt: Receipt) -> String {
        let version = receipt.storedVersion
        guard version > 1 else { return "\(submissionsFolder)/\(receipt.id)/\(part.filename)" }
        return "\(versionsFolder)/\(receipt.id)/\(version)/\(part.filename)"
    }

    /// Whether `path` is a form.json of a stored version.
    static func isFormFile(_ path: String) -> Bool {
        path.hasSuffix("/" + UploadPart.formFilename)
            && (path.hasPrefix(submissionsFolder + "/") || path.hasPrefix(versionsFolder + "/"))
    }

    /// Why `path` cannot be a file of an archive (it would leave the target folder, or is not
    /// one of the archive's places), or nil.
    static func problem(path: String) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard components.count >= 2, !path.hasPrefix("/") else { return "not a path inside the archive's folders" }
        for component in components {
            if component.isEmpty || component == "." || component == ".." { return "not a plain relative path" }
            if component.contains("\0") || component.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return "holds a control character"
            }
        }
        switch components[0] {
        case "mi-backup":
            return [formatPath, submissionsPath, ArchivedTables.reviewPath, ArchivedTables.auditPath, manifestPath].contains(path)
                ? nil : "not a file this format has"
        case templatesFolder:
            return nil
        case submissionsFolder:
            guard components.count == 3, FormID(components[1])?.description == components[1] else {
                return "not submissions/<form id>/<file>"
            }
            return components[2] == UploadPart.formFilename ? nil : SafeName.problem(components[2])
        case versionsFolder:
            guard components.count == 4, FormID(components[1])?.description == components[1],
                  let version = Int(components[2]), version > 1, String(version) == components[2] else {
                return "not versions/<form id>/<version>/<file>"
            }
            return components[3] == UploadPart.formFilename ? nil : SafeName.problem(components[3])
        case "secrets":
            return [signingKeyPath, revokedSessionsPath].contains(path) ? nil : "not a file this format has"
        default:
            return "not one of the archive's folders"
        }
    }
}

/// Why a backup or a restore stopped; each message names the file and says what to do.
public enum BackupError: ClassifiedError, Sendable, Equatable {
    /// Reading or writing a file failed.
    case io(operation: String, path: String, reason: String)
    /// A stored file differs from its receipt: the server's disk was changed or damaged.
    case storedFileDiffers(path: String, problem: String)
    /// The archive is not one `mi-server backup` wrote (or a newer format).
    case notABackup(String)
    /// A file of the archive is damaged, missing or not what the manifest or a receipt says.
    case damaged(path: String, problem: String)
    /// The archive ends before its manifest.
    case truncated(path: String?)
    /// The restore's target holds something already.
    case targetNotEmpty(String)
    /// The restored rows cannot be written into the database.
    case database(String)

    public var failureClass: FailureClass {
        switch self {
        case .io: return .refused
        case .storedFileDiffers, .notABackup, .damaged, .truncated: return .badData
        case .targetNotEmpty, .database: return .refused
        }
    }

    public var code: String {
        switch self {
        case .io: return "io"
        case .storedFileDiffers: return "stored-file-differs"
        case .notABackup: return "not-a-backup"
        case .damaged: return "damaged-archive"
        case .truncated: return "truncated-archive"
        case .targetNotEmpty: return "target-not-empty"
        case .database: return "database"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .io(let operation, let path, let reason):
            return "cannot \(operation) \(path): \(reason)"
        case .storedFileDiffers(let path, let problem):
            return "\(path) \(problem) — the data directory was changed or its disk is failing; no archive was written"
        case .notABackup(let problem):
            return "not an archive of `mi-server backup`: \(problem) — check the file, or make one with `mi-server backup --output FILE`"
        case .damaged(let path, let problem):
            return "the archive is damaged: \(SafeName.printable(path)) \(problem) — nothing was restored; use another copy of the backup"
        case .truncated(let path):
            let place = path.map { "it ends inside or right after \(SafeName.printable($0)), before its manifest" } ?? "it is empty"
            return "the archive is truncated: \(place) — nothing was restored; use a complete copy of the backup"
        case .targetNotEmpty(let what):
            return "cannot restore into \(what): it is not empty — restore only into an empty data directory, templates folder and database"
        case .database(let detail):
            return "cannot write the restored submissions into the database: \(detail) — nothing was restored"
        }
    }
}
