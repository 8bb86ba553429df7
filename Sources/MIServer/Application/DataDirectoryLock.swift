import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// One mi-server per `Server.DataDirectory`: an exclusive `flock` on `mi-server.lock`, taken
/// before anything is cleaned up at start-up (a second server would otherwise remove the
/// first one's uploads in progress) and held until the process exits.
enum DataDirectoryLock {
    /// Lock files this process holds, by path; a second application in the same process (tests)
    /// shares the lock.
    private static let held = NIOLockedValueBox<[String: Int32]>([:])

    static func acquire(in folder: URL) throws {
        let path = folder.appendingPathComponent("mi-server.lock").path
        try held.withLockedValue { held in
            if held[path] != nil { return }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw ServerSetupError.dataDirectory(operation: "open", path: path, reason: String(cString: strerror(errno)))
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK {
                    throw ServerSetupError.alreadyRunning(folder: folder.path)
                }
                throw ServerSetupError.dataDirectory(operation: "lock", path: path, reason: String(cString: strerror(code)))
            }
            held[path] = fd
        }
    }
}
