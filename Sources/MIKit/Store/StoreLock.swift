import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock` on `Documents/.lock`: concurrent mi processes on one store take turns.
/// The lock belongs to the open file description and is released when the process exits,
/// however it exits.
public final class StoreLock {
    private let fd: Int32

    /// Waits up to `timeout` seconds for the exclusive lock.
    public init(root: URL, timeout: TimeInterval) throws {
        let path = root.appendingPathComponent(".lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DurableFile.error("open the lock file", URL(fileURLWithPath: path)) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = DurableFile.error("lock", URL(fileURLWithPath: path))
                close(fd)
                throw error
            }
            if Date() >= deadline {
                close(fd)
                throw StoreError.busy(path: root.path, seconds: Int(timeout.rounded()))
            }
            usleep(20_000)
        }
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
