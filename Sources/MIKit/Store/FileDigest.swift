import Crypto
import Foundation

/// SHA-256 of files, read in 1 MiB chunks so memory stays flat for any size.
public enum FileDigest {
    /// The chunk size files are read in.
    public static let chunkSize = 1 << 20

    /// The file's size in bytes and the lowercase hex SHA-256 of its contents, read once by a
    /// `HashingFileReader` (a file that changes while it is read is refused).
    public static func sha256(of url: URL) throws(StoreError) -> (size: Int64, hex: String) {
        let reader = try HashingFileReader(name: url.lastPathComponent, url: url)
        try reader.skip(reader.size)
        do {
            let digest = try reader.finish()
            return (digest.size, digest.sha256)
        } catch {
            throw .io(operation: "read", path: url.path, reason: "it changed while it was read")
        }
    }

    /// Lowercase hex SHA-256 of bytes in memory.
    public static func sha256(of data: Data) -> String { Hex.lowercase(SHA256.hash(data: data)) }
}
