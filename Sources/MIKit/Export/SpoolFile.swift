import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An anonymous temporary file that is written front to back, then read back once: the zip's
/// central directory and the list of media to copy grow with the number of forms, so they
/// wait on disk instead of in memory. The file is unlinked as soon as it is made, so nothing
/// is left behind whatever happens to the process.
final class SpoolFile {
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var readBuffer: [UInt8] = []
    private var readPosition = 0
    private var reading = false
    /// Bytes appended in all.
    private(set) var size: UInt64 = 0

    static let bufferBytes = 256 * 1024

    /// Makes the file in `folder` (the system's temporary folder by default).
    init(folder: String? = nil) throws(ExportError) {
        let base = folder ?? (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        var template = Array((base + "/.mi-export-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ExportError.temporaryFile(folder: base, reason: String(cString: strerror(errno))) }
        descriptor = fd
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        buffer.reserveCapacity(Self.bufferBytes)
    }

    deinit { close(descriptor) }

    /// Adds `bytes` at the end; only before the first read.
    func append(_ bytes: [UInt8]) throws(ExportError) {
        buffer.append(contentsOf: bytes)
        size += UInt64(bytes.count)
        if buffer.count >= Self.bufferBytes { try flush() }
    }

    private func flush() throws(ExportError) {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ExportError.temporaryFile(folder: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Up to `count` bytes from where the last read stopped (from the start at the first
    /// read); empty at the end.
    func read(upTo count: Int) throws(ExportError) -> [UInt8] {
        try startReading()
        if readPosition == readBuffer.count { try fill() }
        let end = min(readBuffer.count, readPosition + count)
        let bytes = Array(readBuffer[readPosition..<end])
        readPosition = end
        return bytes
    }

    /// Exactly `count` bytes, or nil at the end of the file.
    func read(exactly count: Int) throws(ExportError) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let part = try read(upTo: count - bytes.count)
            if part.isEmpty { return nil }
            bytes += part
        }
        return bytes
    }

    private func startReading() throws(ExportError) {
        guard !reading else { return }
        try flush()
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw ExportError.temporaryFile(folder: path, reason: String(cString: strerror(errno)))
        }
        reading = true
    }

    private func fill() throws(ExportError) {
        readBuffer = [UInt8](repeating: 0, count: Self.bufferBytes)
        while true {
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ExportError.temporaryFile(folder: path, reason: String(cString: strerror(errno)))
            }
            readBuffer.removeSubrange(count...)
            readPosition = 0
            return
        }
    }
}
