import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file once, front to back, computing its SHA-256 from the very bytes handed out: the
/// upload sends what it reads and hashes what it sends, in one pass over the disk.
///
/// The file's identity (inode, size, modification time) is taken when it is opened. `finish()`
/// checks, after the last byte, that as many bytes were read as the file had, that the open file
/// was not written to and that the path still names it; a file changed while it was being read
/// throws `ReceiptError.changedDuringUpload`, so its upload is never taken as proof.
public final class HashingFileReader {
    /// The part's name, for messages.
    public let name: String
    /// The file read.
    public let url: URL
    /// The file's identity when it was opened.
    public let identity: FileIdentity
    /// Bytes read (and hashed) so far.
    public private(set) var bytesRead: Int64 = 0

    private let descriptor: Int32
    private var hasher = SHA256()

    /// Opens `url` for reading; `name` names the part in errors.
    public init(name: String, url: URL) throws(StoreError) {
        self.name = name
        self.url = url
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .io(operation: "read", path: url.path, reason: String(cString: strerror(errno)))
        }
        guard let identity = FileIdentity(descriptor: descriptor), identity.isRegularFile else {
            close(descriptor)
            throw .io(operation: "read", path: url.path, reason: "not a regular file")
        }
        self.descriptor = descriptor
        self.identity = identity
    }

    deinit { close(descriptor) }

    /// The file's size when it was opened.
    public var size: Int64 { identity.size }

    /// Fills `buffer` with the next bytes and hashes them; 0 at the end of the file. Never reads
    /// past the size the file had when it was opened (bytes appended since are not part of it).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(StoreError) -> Int {
        let wanted = Int(min(Int64(buffer.count), identity.size - bytesRead))
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        while true {
            let count = Glibc.read(descriptor, base, wanted)
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: url.path, reason: String(cString: strerror(errno)))
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: base, count: count))
            bytesRead += Int64(count)
            return count
        }
    }

    /// Reads and hashes the next `count` bytes without handing them out: the part of a resumed
    /// upload the server already holds is read from disk, not sent again.
    public func skip(_ count: Int64) throws(StoreError) {
        guard count > 0 else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileDigest.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var left = count
        while left > 0 {
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(left, Int64(buffer.count)))])
            let read = try read(into: slice)
            if read == 0 { break }
            left -= Int64(read)
        }
    }

    /// Starts again from the first byte, with a new hash (libcurl rewinds a body it must resend).
    public func rewind() throws(StoreError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw .io(operation: "read", path: url.path, reason: String(cString: strerror(errno)))
        }
        hasher = SHA256()
        bytesRead = 0
    }

    /// After the last byte: the part's size and SHA-256, or `changedDuringUpload` when fewer
    /// bytes could be read than the file had, or the file was written to or replaced meanwhile.
    public func finish() throws(ReceiptError) -> PartDigest {
        guard bytesRead == identity.size, FileIdentity(descriptor: descriptor) == identity,
              FileIdentity(url) == identity
        else {
            throw .changedDuringUpload(name)
        }
        return PartDigest(name: name, size: bytesRead, sha256: Hex.lowercase(hasher.finalize()))
    }
}

