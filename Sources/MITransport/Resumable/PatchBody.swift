import CCurl
import Foundation
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// One PATCH's body for libcurl's read callback: the next `length` bytes of a file, read (and
/// hashed into the whole file's SHA-256) by its `HashingFileReader` while they are sent — no
/// buffer of its own, so memory stays flat whatever the chunk's size.
final class PatchBody {
    let reader: HashingFileReader
    let length: Int64
    private(set) var given: Int64 = 0
    /// Set when the file could not be read or came up short; the transfer was aborted.
    private(set) var error: (any Error)?

    init(reader: HashingFileReader, length: Int64) {
        self.reader = reader
        self.length = length
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// `curl_read_callback`.
    static let read: curl_read_callback = { buffer, size, count, context in
        guard let context, let buffer else { return Int(CURL_READFUNC_ABORT) }
        let body = Unmanaged<PatchBody>.fromOpaque(context).takeUnretainedValue()
        let wanted = Int(min(Int64(size * count), body.length - body.given))
        guard wanted > 0 else { return 0 }
        do {
            let read = try body.reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: wanted))
            guard read > 0 else { throw ReceiptError.changedDuringUpload(body.reader.name) }
            body.given += Int64(read)
            return read
        } catch {
            body.error = error
            return Int(CURL_READFUNC_ABORT)
        }
    }
}

/// The CRC-32C of a range of a file, computed on a thread of its own (with its own descriptor)
/// while the chunk before it is sent: a PATCH's `Upload-Checksum` must go before its body.
final class ChecksumAhead: @unchecked Sendable {
    /// Read in steps this size: the CRC keeps up with the disk, and memory stays small.
    static let bufferSize = 256 << 10
    let offset: Int64
    let length: Int64
    private let condition = NSCondition()
    private var result: Result<UploadChecksum, StoreError>?

    init(file: URL, offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
        let path = file.path
        Thread { [self] in
            let computed = Self.compute(path: path, offset: offset, length: length)
            condition.lock()
            result = computed
            condition.broadcast()
            condition.unlock()
        }.start()
    }

    /// The checksum, once computed.
    func value() throws(StoreError) -> UploadChecksum {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }

    private static func compute(path: String, offset: Int64, length: Int64) -> Result<UploadChecksum, StoreError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.io(operation: "read", path: path, reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = UploadChecksum.Hasher(.crc32c)
        var done: Int64 = 0
        while done < length {
            let count = pread(fd, buffer.baseAddress, Int(min(Int64(buffer.count), length - done)), off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.io(operation: "read", path: path, reason: String(cString: strerror(errno))))
            }
            if count == 0 { return .failure(.io(operation: "read", path: path, reason: "the file became shorter")) }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            done += Int64(count)
        }
        return .success(hasher.finalize())
    }
}
