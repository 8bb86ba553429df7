import Foundation
import MIKit
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// Sessions ended before their expiry ("Sign out"), kept in `DataDirectory/revoked-sessions`:
/// one line `<token id> <expiry>` per ended session. Every mi-server sharing the data folder
/// reads the same file, so a cookie signed out on one server is refused by all of them.
///
/// A line is appended under an exclusive `flock` and synced before the sign-out answers. A
/// reader looks at the file's identity (inode, size, modification time) on every check — one
/// `stat` — and re-reads it only when it changed. Lines of expired tokens are dropped when a
/// server starts (`prune`): the file is rewritten beside itself and renamed over it, and an
/// appender that opened the old file notices (its inode is no longer the path's) and reopens.
final class SessionRevocations: Sendable {
    let file: URL

    private struct Snapshot {
        var stamp: Stamp?
        var revoked: [String: Int64] = [:]
    }

    private struct Stamp: Equatable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var modifiedNanoseconds: Int
    }

    private let snapshot = NIOLockedValueBox(Snapshot())

    init(file: URL) { self.file = file }

    /// Records that the token `id`, valid until `expires` (seconds since 1970), is ended.
    func revoke(id: String, expires: Int64) throws {
        guard Self.isValidID(id) else { return }
        let line = Data("\(id) \(expires)\n".utf8)
        while true {
            let fd = open(file.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw Self.failure("open", file) }
            defer { close(fd) }
            guard flock(fd, LOCK_EX) == 0 else { throw Self.failure("lock", file) }
            // A prune may have renamed a new file over the one opened: write to the new one.
            var opened = stat()
            var current = stat()
            guard fstat(fd, &opened) == 0 else { throw Self.failure("stat", file) }
            if stat(file.path, &current) != 0 || current.st_ino != opened.st_ino { continue }
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count, fsync(fd) == 0 else { throw Self.failure("write", file) }
            return
        }
    }

    /// Whether the token `id` was ended. A file that cannot be read is taken as no revocations
    /// only when it does not exist; any other failure counts every token as revoked (fail closed).
    func isRevoked(id: String, now: Date) -> Bool {
        snapshot.withLockedValue { snapshot in
            var info = stat()
            guard stat(file.path, &info) == 0 else {
                if errno == ENOENT { snapshot = Snapshot(); return false }
                return true
            }
            let stamp = Stamp(inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec),
                              modifiedNanoseconds: Int(info.st_mtim.tv_nsec))
            if stamp != snapshot.stamp {
                guard let text = try? DurableFile.contents(atPath: file.path) else { return true }
                snapshot = Snapshot(stamp: stamp, revoked: Self.parse(text))
            }
            guard let expiry = snapshot.revoked[id] else { return false }
            return TimeInterval(expiry) > now.timeIntervalSince1970 - 60
        }
    }

    /// Drops the lines of tokens that have expired (kept a minute longer, for clocks that differ).
    func prune(now: Date) throws {
        let fd = open(file.path, O_RDWR | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return }
            throw Self.failure("open", file)
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw Self.failure("lock", file) }
        // Another server's prune renamed a new file over this one meanwhile: prune that one.
        var opened = stat()
        var current = stat()
        guard fstat(fd, &opened) == 0 else { throw Self.failure("stat", file) }
        guard stat(file.path, &current) == 0, current.st_ino == opened.st_ino else { return try prune(now: now) }
        let text = try DurableFile.contents(atPath: file.path)
        let limit = Int64(now.timeIntervalSince1970) - 60
        let kept = Self.parse(text).filter { $0.value > limit }
        let lines = kept.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        guard lines.utf8.count < text.count else { return }
        try DurableFile.write(Data(lines.utf8), to: file, permissions: 0o600)
    }

    /// A token id: base64url, as `SessionTokens` makes them (or a SHA-256 in hex).
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    private static func parse(_ data: Data) -> [String: Int64] {
        var revoked: [String: Int64] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let expiry = Int64(fields[1]) else { continue }
            let id = String(fields[0])
            guard isValidID(id) else { continue }
            revoked[id] = max(revoked[id] ?? 0, expiry)
        }
        return revoked
    }

    private static func failure(_ operation: String, _ file: URL) -> ServerSetupError {
        .dataDirectory(operation: operation, path: file.path, reason: String(cString: strerror(errno)))
    }
}
