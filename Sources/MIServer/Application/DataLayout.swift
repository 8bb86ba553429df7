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
///   mi-server.lock          flock: one server per data folder
///   mi-server.sqlite        submissions and their parts
///   incoming/<uuid>/        uploads being received (removed at start-up)
///   submissions/<form id>/  form.json + media of every committed submission
///   uploads/<uuid>/         resumable (tus) uploads: info.json + data (removed when expired)
/// ```
struct DataLayout: Sendable {
    let root: URL

    var signingKey: URL { root.appendingPathComponent("signing.key") }
    var database: URL { root.appendingPathComponent("mi-server.sqlite") }
    var incoming: URL { root.appendingPathComponent("incoming", isDirectory: true) }
    var submissions: URL { root.appendingPathComponent("submissions", isDirectory: true) }
    var uploads: URL { root.appendingPathComponent("uploads", isDirectory: true) }

    func submission(_ id: String) -> URL { submissions.appendingPathComponent(id, isDirectory: true) }

    /// Creates the folders; the data folder is made owner-only (it holds the signing key).
    func prepare() throws {
        try DurableFile.makeFolder(root)
        guard chmod(root.path, 0o700) == 0 else {
            throw ServerSetupError.dataDirectory(operation: "make owner-only", path: root.path, reason: String(cString: strerror(errno)))
        }
        try DurableFile.makeFolder(incoming)
        try DurableFile.makeFolder(submissions)
        try DurableFile.makeFolder(uploads)
    }

    /// Removes what a server killed mid-upload left: everything under `incoming/`, and every
    /// `submissions/<id>` folder without a committed row (a rename done just before a commit
    /// that never happened). Returns the names removed.
    @discardableResult
    func removeLeftovers(committed: Set<String>, logger: Logger) throws -> [String] {
        var removed: [String] = []
        let fileManager = FileManager.default
        for name in try fileManager.contentsOfDirectory(atPath: incoming.path) {
            try fileManager.removeItem(at: incoming.appendingPathComponent(name))
            removed.append("incoming/\(name)")
        }
        for name in try fileManager.contentsOfDirectory(atPath: submissions.path) where !committed.contains(name) {
            try fileManager.removeItem(at: submissions.appendingPathComponent(name))
            removed.append("submissions/\(name)")
        }
        if !removed.isEmpty {
            try DurableFile.syncFolder(incoming)
            try DurableFile.syncFolder(submissions)
            logger.notice("removed unfinished uploads left by an earlier run", metadata: [
                "removed": .array(removed.map { .string($0) }),
            ])
        }
        for id in committed.sorted() where !fileManager.fileExists(atPath: submission(id).path) {
            logger.error("submission \(id) is recorded but its folder \(submission(id).path) is missing — restore it from a backup")
        }
        return removed
    }
}
