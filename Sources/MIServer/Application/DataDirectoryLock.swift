import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// Who may use a `Server.DataDirectory`, decided by `flock` before anything is cleaned up at
/// start-up (a second server would otherwise remove the first one's uploads in progress) and held
/// until the process exits.
///
/// On SQLite one mi-server owns the folder: an exclusive lock on `mi-server.lock`. On PostgreSQL
/// several mi-servers (on this machine or others, the folder on a shared filesystem) use it at
/// once: each holds a shared lock on `mi-server.lock`, so an SQLite server cannot join them, and
/// receives into a folder of its own, `incoming/<instance>/`, whose `incoming/<instance>.lock` it
/// holds exclusively. A folder whose lock can be taken belongs to a server that is gone and is
/// removed at the next start (`DataLayout.removeLeftovers`).
enum DataDirectoryLock {
    /// What this process holds for one data folder (a second application in the same process,
    /// in tests, shares it).
    private struct Held {
        var folderLock: Int32
        var instance: String
        var instanceLock: Int32
    }

    private static let held = NIOLockedValueBox<[String: Held]>([:])

    /// Takes the data folder for this process (exclusively unless `shared`) and makes this
    /// process's receiving folder; returns its name (`DataLayout.instance`).
    static func acquire(in folder: URL, shared: Bool) throws -> String {
        let path = folder.appendingPathComponent("mi-server.lock").path
        return try held.withLockedValue { held in
            if let mine = held[path] { return mine.instance }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw ServerSetupError.dataDirectory(operation: "open", path: path, reason: String(cString: strerror(errno)))
            }
            guard flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 else {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK {
                    throw ServerSetupError.alreadyRunning(folder: folder.path)
                }
                throw ServerSetupError.dataDirectory(operation: "lock", path: path, reason: String(cString: strerror(code)))
            }
            do {
                let (instance, instanceLock) = try makeInstance(in: DataLayout(root: folder).incoming)
                held[path] = Held(folderLock: fd, instance: instance, instanceLock: instanceLock)
                return instance
            } catch {
                close(fd)
                throw error
            }
        }
    }

    /// Creates `incoming/<new id>.lock`, locks it, then makes `incoming/<new id>/`: the lock comes
    /// first, so a folder without a held lock is never a live server's. A sweep that took the lock
    /// file in the instant between its creation and our lock has unlinked it: then try a new id.
    private static func makeInstance(in incoming: URL) throws -> (String, Int32) {
        while true {
            let instance = UUID().uuidString.lowercased()
            let lockPath = incoming.appendingPathComponent(instance + lockSuffix).path
            let fd = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw ServerSetupError.dataDirectory(operation: "create", path: lockPath, reason: String(cString: strerror(errno)))
            }
            var info = stat()
            guard flock(fd, LOCK_EX) == 0, fstat(fd, &info) == 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw ServerSetupError.dataDirectory(operation: "lock", path: lockPath, reason: reason)
            }
            if info.st_nlink == 0 {
                close(fd)
                continue
            }
            let receiving = incoming.appendingPathComponent(instance, isDirectory: true)
            guard mkdir(receiving.path, 0o700) == 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(lockPath)
                throw ServerSetupError.dataDirectory(operation: "create", path: receiving.path, reason: reason)
            }
            return (instance, fd)
        }
    }

    static let lockSuffix = ".lock"

    /// Whether `incoming/<name>` belongs to a server that is gone: its lock file is missing or
    /// can be locked. When it can, the lock is held while `remove` runs and the lock file is
    /// removed after it, so its owner's folder goes before anyone could take the name again.
    static func whenAbandoned(_ name: String, in incoming: URL, remove: () throws -> Void) throws {
        let lockPath = incoming.appendingPathComponent(name + lockSuffix).path
        let fd = open(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            guard errno == ENOENT else {
                throw ServerSetupError.dataDirectory(operation: "open", path: lockPath, reason: String(cString: strerror(errno)))
            }
            try remove()
            return
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return }
        try remove()
        unlink(lockPath)
    }
}
