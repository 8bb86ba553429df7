import Crypto
import Foundation
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// Where a download's body goes instead of memory: a file, hashed as it is written, so a media
/// file of any size comes down in constant memory. At most `limit` bytes are taken (the size the
/// receipt promises); one more aborts the transfer. The first bytes are also kept, for the
/// message of an error response. Each try of a repeated request starts the file over.
final class DownloadSink {
    /// Bytes of an error response kept for its message.
    static let keptBytes = 64 << 10

    let file: URL
    let limit: Int64
    private let descriptor: Int32
    private var hasher = SHA256()
    private(set) var size: Int64 = 0
    private(set) var prefix = Data()
    private(set) var overflowed = false
    private(set) var writeError: Int32?

    /// Creates `file` (it must not exist) for a body of at most `limit` bytes.
    init(file: URL, limit: Int64) throws {
        self.file = file
        self.limit = limit
        descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DurableFile.error("create", file) }
    }

    deinit { close(descriptor) }

    /// Empties the file for another try.
    func restart() {
        _ = ftruncate(descriptor, 0)
        _ = lseek(descriptor, 0, SEEK_SET)
        hasher = SHA256()
        size = 0
        prefix = Data()
        overflowed = false
        writeError = nil
    }

    /// Takes the next bytes; false stops the transfer (over the limit, or the disk refused).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard size + Int64(bytes.count) <= limit else {
            overflowed = true
            return false
        }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                writeError = errno
                return false
            }
            offset += written
        }
        hasher.update(bufferPointer: bytes)
        if prefix.count < Self.keptBytes { prefix.append(contentsOf: bytes.prefix(Self.keptBytes - prefix.count)) }
        size += Int64(bytes.count)
        return true
    }

    /// The file's bytes on disk (fsync) and its SHA-256 (lowercase hex).
    func finish() throws -> (size: Int64, sha256: String) {
        guard fsync(descriptor) == 0 else { throw DurableFile.error("sync", file) }
        return (size, Hex.lowercase(hasher.finalize()))
    }
}
