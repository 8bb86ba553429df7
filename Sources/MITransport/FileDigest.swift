import Crypto
import Foundation

/// SHA-256 of files, read in 1 MiB chunks so memory stays flat for any size.
public enum FileDigest {
    /// The chunk size files are read in.
    public static let chunkSize = 1 << 20

    /// The file's size in bytes and the lowercase hex SHA-256 of its contents.
    public static func sha256(of url: URL) throws -> (size: Int64, hex: String) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TransportError.unreadableFile(path: url.path, detail: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var hasher = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw TransportError.unreadableFile(path: url.path, detail: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (size, hex(hasher.finalize()))
    }

    /// Lowercase hex of a digest's bytes.
    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Lowercase hex SHA-256 of bytes in memory.
    static func sha256(of data: Data) -> String { hex(SHA256.hash(data: data)) }
}
