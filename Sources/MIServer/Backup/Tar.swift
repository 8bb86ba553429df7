import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The POSIX tar (ustar, with pax headers for names over 100 bytes and sizes over 8 GiB) that
/// `mi-server backup` writes and `restore` reads: regular files only, so GNU tar, bsdtar and
/// Python's tarfile list and extract an archive too.
enum Tar {
    static let blockSize = 512
    /// The largest size the header's 11 octal digits hold.
    static let largestOctalSize: Int64 = 0o77777777777

    /// The header block(s) of a regular file `path` of `size` bytes.
    static func header(path: String, size: Int64, modified: Int64) -> [UInt8] {
        var records: [(String, String)] = []
        let name = Array(path.utf8)
        if name.count > 100 { records.append(("path", path)) }
        if size > largestOctalSize { records.append(("size", String(size))) }
        var blocks: [UInt8] = []
        if !records.isEmpty {
            let body = Array(records.map(paxRecord).joined().utf8)
            blocks += block(name: Array("PaxHeaders/\(path.utf8.count > 80 ? String(path.suffix(80)) : path)".utf8.prefix(100)),
                            size: Int64(body.count), modified: modified, type: UInt8(ascii: "x"))
            blocks += body + padding(Int64(body.count))
        }
        blocks += block(name: Array(name.prefix(100)), size: min(size, largestOctalSize), modified: modified, type: UInt8(ascii: "0"))
        return blocks
    }

    /// The two zero blocks that end an archive.
    static let end = [UInt8](repeating: 0, count: 2 * blockSize)

    /// The zero bytes after `size` bytes of data up to the next block.
    static func padding(_ size: Int64) -> [UInt8] {
        let rest = Int(size % Int64(blockSize))
        return rest == 0 ? [] : [UInt8](repeating: 0, count: blockSize - rest)
    }

    /// `LEN key=value\n`, LEN counting itself.
    private static func paxRecord(_ record: (String, String)) -> String {
        let content = " \(record.0)=\(record.1)\n"
        var length = content.utf8.count + 1
        while String(length).count + content.utf8.count != length { length = String(length).count + content.utf8.count }
        return String(length) + content
    }

    private static func block(name: [UInt8], size: Int64, modified: Int64, type: UInt8) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: [UInt8], at offset: Int) {
            for (index, byte) in bytes.enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(name, at: 0)
        put(octal(0o600, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(max(0, modified), width: 12), at: 136)
        header[156] = type
        put(Array("ustar".utf8) + [0], at: 257)
        put(Array("00".utf8), at: 263)
        put(Array(repeating: UInt8(ascii: " "), count: 8), at: 148)
        let sum = header.reduce(0) { $0 + Int($1) }
        put(octal(Int64(sum), width: 7) + [UInt8(ascii: " ")], at: 148)
        return header
    }

    /// One entry's header as read: the name, the size, and whether it is a pax header.
    enum Header: Equatable {
        case file(path: String, size: Int64)
        case pax(size: Int64)
        /// A zero block: the archive's end.
        case end
    }

    enum HeaderProblem: Error, Equatable {
        case badChecksum
        case notUstar
        case unsupportedType(UInt8)
        case badNumber
    }

    /// Parses a header block.
    static func parse(_ block: [UInt8]) -> Result<Header, HeaderProblem> {
        if block.allSatisfy({ $0 == 0 }) { return .success(.end) }
        var sum = 0
        for (index, byte) in block.enumerated() { sum += (148..<156).contains(index) ? 32 : Int(byte) }
        guard let stored = number(block[148..<156]), stored == Int64(sum) else { return .failure(.badChecksum) }
        guard Array(block[257..<262]) == Array("ustar".utf8) else { return .failure(.notUstar) }
        guard let size = number(block[124..<136]), size >= 0 else { return .failure(.badNumber) }
        let nameBytes = block[0..<100].prefix { $0 != 0 }
        let prefixBytes = block[345..<500].prefix { $0 != 0 }
        var path = String(decoding: nameBytes, as: UTF8.self)
        if !prefixBytes.isEmpty { path = String(decoding: prefixBytes, as: UTF8.self) + "/" + path }
        switch block[156] {
        case UInt8(ascii: "0"), 0: return .success(.file(path: path, size: size))
        case UInt8(ascii: "x"): return .success(.pax(size: size))
        case let other: return .failure(.unsupportedType(other))
        }
    }

    /// An octal field (NUL- or space-terminated), or GNU's base-256 for large values.
    private static func number(_ field: ArraySlice<UInt8>) -> Int64? {
        if let first = field.first, first & 0x80 != 0 {
            var value: Int64 = Int64(first & 0x7F)
            for byte in field.dropFirst() {
                guard value < (Int64.max >> 8) else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        let digits = field.drop { $0 == UInt8(ascii: " ") }.prefix { $0 != 0 && $0 != UInt8(ascii: " ") }
        guard !digits.isEmpty else { return 0 }
        return Int64(String(decoding: digits, as: UTF8.self), radix: 8)
    }

    /// The `path` and `size` records of a pax header's body.
    static func paxRecords(_ body: [UInt8]) -> [String: String]? {
        var records: [String: String] = [:]
        var index = body.startIndex
        while index < body.endIndex {
            guard let space = body[index...].firstIndex(of: UInt8(ascii: " ")),
                  let length = Int(String(decoding: body[index..<space], as: UTF8.self)), length > 0,
                  index + length <= body.endIndex, body[index + length - 1] == UInt8(ascii: "\n") else { return nil }
            let record = body[(space + 1)..<(index + length - 1)]
            guard let equals = record.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            records[String(decoding: record[record.startIndex..<equals], as: UTF8.self)] =
                String(decoding: record[(equals + 1)...], as: UTF8.self)
            index += length
        }
        return records
    }
}

/// An archive written to or read from a pipe (`--output - | ssh …`, `ssh … | restore --from -`).
enum ArchivePipe {
    /// F_SETPIPE_SZ: Linux's fcntl.h declares it only under _GNU_SOURCE, which Glibc's module leaves out.
    private static let setPipeSize: Int32 = 1031

    /// A pipe holds 64 KiB unless asked: MI and the program at the other end (`cat`, `ssh`,
    /// `age`) would take turns every 64 KiB, two context switches each, which cost a backup more
    /// than its copying. Asked for `bytes` (1 MiB is an unprivileged process's limit), each side
    /// runs a whole chunk. Anything but a pipe is left alone; a refusal only keeps the default.
    static func enlarge(_ fd: Int32, to bytes: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else { return }
        _ = fcntl(fd, setPipeSize, Int32(bytes))
    }
}

/// Bytes written to a file descriptor through a 1 MiB buffer.
final class ArchiveOutput: @unchecked Sendable {
    let fd: Int32
    let name: String
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 20
    private(set) var written: Int64 = 0

    init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
        buffer.reserveCapacity(Self.capacity)
        ArchivePipe.enlarge(fd, to: Self.capacity)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if buffer.count + bytes.count > Self.capacity { try flush() }
        if bytes.count >= Self.capacity {
            try writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
        written += Int64(bytes.count)
    }

    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

    func flush() throws {
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw BackupError.io(operation: "write", path: name, reason: String(cString: strerror(errno)))
            }
            offset += count
        }
    }
}

/// Bytes read from a file descriptor through a 1 MiB buffer.
final class ArchiveInput: @unchecked Sendable {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private var start = 0
    private var end = 0
    let name: String

    init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
        ArchivePipe.enlarge(fd, to: buffer.count)
    }

    /// Up to `limit` bytes (fewer only at the end of the input), handed to `body` without copying.
    func read(upTo limit: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        if start == end {
            start = 0
            end = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw BackupError.io(operation: "read", path: name, reason: String(cString: strerror(errno)))
                }
                end = count
                break
            }
            if end == 0 { return 0 }
        }
        let count = min(limit, end - start)
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
        start += count
        return count
    }

    /// Exactly `count` bytes, or nil at the end of the input (with what was there).
    func readExactly(_ count: Int) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let got = try read(upTo: count - bytes.count) { bytes.append(contentsOf: $0) }
            if got == 0 { return nil }
        }
        return bytes
    }
}
