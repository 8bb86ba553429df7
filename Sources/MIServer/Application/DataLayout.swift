import Foundation
import Logging
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// What mi-server keeps under `Server.DataDirectory`:
///
/// ```
/// DataDirectory/            0700
///   signing.key             0600, 32 random bytes: the session tokens' HMAC key
///   mi-server.lock          flock: one server per data folder (SQLite), or shared (PostgreSQL)
///   mi-server.sqlite        submissions and their parts (SQLite)
///   revoked-sessions        0600, `<token id> <expiry>` of every session signed out early
///   incoming/<instance>.lock  flock held by the server receiving into incoming/<instance>/
///   incoming/<instance>/<uuid>/  uploads being received (removed when their server is gone)
///   submissions/<form id>/  form.json + media of every committed submission (its first version)
///   versions/<form id>/<n>/   form.json + media of version n ≥ 2 of a form sent back and corrected
///   uploads/<uuid>/         resumable (tus) uploads: info.json + data (removed when expired)
/// ```
struct DataLayout: Sendable {
    let root: URL
    /// This server's own receiving folder under `incoming/`, once `DataDirectoryLock` made it.
    var instance: String?

    var signingKey: URL { root.appendingPathComponent("signing.key") }
    var database: URL { root.appendingPathComponent("mi-server.sqlite") }
    var revokedSessions: URL { root.appendingPathComponent("revoked-sessions") }
    var incoming: URL { root.appendingPathComponent("incoming", isDirectory: true) }
    var submissions: URL { root.appendingPathComponent("submissions", isDirectory: true) }
    var uploads: URL { root.appendingPathComponent("uploads", isDirectory: true) }
    var versions: URL { root.appendingPathComponent("versions", isDirectory: true) }
    /// Where this server receives uploads and stages new resumable ones: its own folder under
    /// `incoming/`, on the same filesystem as `submissions/` and `uploads/` (files move by rename).
    var receiving: URL { instance.map { incoming.appendingPathComponent($0, isDirectory: true) } ?? incoming }

    /// The folder of version `version` of form `id`: the first where it always was, a later
    /// one under `versions/`, so a version, once stored, is never touched again.
    func submission(_ id: FormID, version: Int = 1) -> URL {
        guard version > 1 else { return submissions.appendingPathComponent(id.description, isDirectory: true) }
        return versions.appendingPathComponent(id.description, isDirectory: true)
            .appendingPathComponent(String(version), isDirectory: true)
    }

    /// The folder of the stored version `receipt` describes.
    func folder(of receipt: Receipt) -> URL { submission(receipt.id, version: receipt.storedVersion) }

    /// Creates the folders; the data folder is made owner-only (it holds the signing key).
    func prepare() throws {
        try DurableFile.makeFolder(root)
        guard chmod(root.path, 0o700) == 0 else {
            throw ServerSetupError.dataDirectory(operation: "make owner-only", path: root.path, reason: String(cString: strerror(errno)))
        }
        try DurableFile.makeFolder(incoming)
        try DurableFile.makeFolder(submissions)
        try DurableFile.makeFolder(uploads)
        try DurableFile.makeFolder(versions)
    }

    /// The `versions/<id>/<n>` folders of versions that were never committed (and any folder
    /// there that is no form's version), each under the repository's lock for its id. A form's
    /// folder stays even when empty: another server may be placing a version in it. Returns the
    /// names removed.
    private func removeUncommittedVersions(repository: any SubmissionRepository) async throws -> [String] {
        let versions = self.versions
        let forms = (try? await Blocking.run { try FileManager.default.contentsOfDirectory(atPath: versions.path) }) ?? []
        var removed: [String] = []
        for name in forms.sorted() {
            let form = versions.appendingPathComponent(name, isDirectory: true)
            guard let id = FormID(name), id.description == name else {
                try? FileManager.default.removeItem(at: form)
                removed.append("versions/\(name)")
                continue
            }
            let numbers = (try? FileManager.default.contentsOfDirectory(atPath: form.path)) ?? []
            for number in numbers.sorted() {
                let folder = form.appendingPathComponent(number, isDirectory: true)
                guard let version = Int(number), version > 1, String(version) == number else {
                    try? FileManager.default.removeItem(at: folder)
                    removed.append("versions/\(name)/\(number)")
                    continue
                }
                if try await repository.discardUnrecorded(id: id, version: version, remove: { try? FileManager.default.removeItem(at: folder) }) {
                    removed.append("versions/\(name)/\(number)")
                }
            }
        }
        if !removed.isEmpty { try await Blocking.run { try DurableFile.syncFolder(versions) } }
        return removed
    }

    /// Removes `url`; false when it is already gone (another server starting at the same time
    /// swept it first).
    private static func remove(_ url: URL) throws -> Bool {
        do {
            try FileManager.default.removeItem(at: url)
            return true
        } catch CocoaError.fileNoSuchFile {
            return false
        }
    }

    /// Removes what servers killed mid-upload left: the receiving folders under `incoming/` of
    /// servers that are gone (`DataDirectoryLock.whenAbandoned`: a live server's, on this machine
    /// or another sharing the folder, is left alone), and every `submissions/<id>` folder without
    /// a committed row and `versions/<id>/<n>` folder of a version never committed (a rename done
    /// just before a commit that never happened), each removed under the repository's lock for
    /// that id so a commit under way elsewhere keeps its files.
    /// Returns the names removed.
    @discardableResult
    func removeLeftovers(repository: any SubmissionRepository, logger: Logger) async throws -> [String] {
        let incoming = self.incoming
        let own = instance
        var removed = try await Blocking.run {
            var removed: [String] = []
            let fileManager = FileManager.default
            let names = try fileManager.contentsOfDirectory(atPath: incoming.path).sorted()
            for name in names where name != own && name != own.map({ $0 + DataDirectoryLock.lockSuffix }) {
                if name.hasSuffix(DataDirectoryLock.lockSuffix) {
                    // A lock whose folder is gone: a server that died before making it.
                    let owner = String(name.dropLast(DataDirectoryLock.lockSuffix.count))
                    if !names.contains(owner) { try DataDirectoryLock.whenAbandoned(owner, in: incoming) {} }
                    continue
                }
                let url = incoming.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard fileManager.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
                if isFolder.boolValue {
                    try DataDirectoryLock.whenAbandoned(name, in: incoming) {
                        if try Self.remove(url) { removed.append("incoming/\(name)") }
                    }
                } else if try Self.remove(url) {
                    removed.append("incoming/\(name)")
                }
            }
            if !removed.isEmpty { try DurableFile.syncFolder(incoming) }
            return removed
        }
        let committed = try await repository.submissionIDs()
        let submissions = self.submissions
        let names = try await Blocking.run { try FileManager.default.contentsOfDirectory(atPath: submissions.path) }
        var removedSubmissions = false
        for name in names.sorted() {
            let folder = submissions.appendingPathComponent(name)
            // A folder whose name is no form id in its one spelling can be no submission's.
            guard let id = FormID(name), id.description == name else {
                try? FileManager.default.removeItem(at: folder)
                removed.append("submissions/\(name)")
                removedSubmissions = true
                continue
            }
            guard !committed.contains(id) else { continue }
            if try await repository.discardUnrecorded(id: id, version: 1, remove: { try? FileManager.default.removeItem(at: folder) }) {
                removed.append("submissions/\(name)")
                removedSubmissions = true
            }
        }
        if removedSubmissions { try await Blocking.run { try DurableFile.syncFolder(submissions) } }
        removed += try await removeUncommittedVersions(repository: repository)
        if !removed.isEmpty {
            logger.notice("removed unfinished uploads left by an earlier run", metadata: [
                "removed": .array(removed.map { .string($0) }),
            ])
        }
        let missing = try await Blocking.run { [self] in
            committed.sorted().filter { !FileManager.default.fileExists(atPath: submission($0).path) }
        }
        for id in missing {
            logger.error("submission \(id) is recorded but its folder \(submission(id).path) is missing — restore it from a backup")
        }
        return removed
    }
}
