import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 of files, read in 1 MiB chunks so memory stays flat for any size.
public enum FileDigest {
    /// The chunk size files are read in.
    public static let chunkSize = 1 << 20

    /// The file's size in bytes and the lowercase hex SHA-256 of its contents.
    public static func sha256(of url: URL) throws(StoreError) -> (size: Int64, hex: String) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(url) }
        defer { close(descriptor) }
        var hasher = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(url)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (size, Hex.lowercase(hasher.finalize()))
    }

    /// Lowercase hex SHA-256 of bytes in memory.
    public static func sha256(of data: Data) -> String { Hex.lowercase(SHA256.hash(data: data)) }

    private static func unreadable(_ url: URL) -> StoreError {
        .io(operation: "read", path: url.path, reason: String(cString: strerror(errno)))
    }
}
