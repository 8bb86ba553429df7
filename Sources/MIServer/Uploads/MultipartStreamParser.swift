import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Receives what `MultipartStreamParser` finds, in order: for each part its headers, its body
/// in pieces, its end.
protocol MultipartStreamHandler: AnyObject {
    func partBegins(headers: [(name: String, value: String)]) throws
    /// A piece of the current part's body; valid only during the call.
    func partBody(_ bytes: UnsafeRawBufferPointer) throws
    func partEnds() throws
}

/// The body is not multipart (RFC 2046 §5.1.1 / RFC 7578) as its Content-Type says.
struct MultipartSyntaxError: Error, Equatable {
    var problem: String
}

/// An incremental multipart parser: fed the body's buffers as they arrive, it hands each
/// part's body on without collecting it, so memory stays flat whatever the part sizes.
///
/// The delimiter is found with `memchr`/`memcmp` on the raw bytes. (multipart-kit's
/// `MultipartParser` was the first choice, but it copies bodies byte by byte — about 3 MB/s
/// in a debug build, minutes for a 1 GiB upload — and cannot tell a body that ended before its
/// closing boundary from a complete one.) Only the bytes that may begin a delimiter split
/// between two buffers, or a part's header block (at most `maximumHeaderBytes`), are kept.
final class MultipartStreamParser {
    /// The header block of one part may not be larger than this.
    static let maximumHeaderBytes = 16 * 1024

    private enum State { case preamble, afterDelimiter, headers, body, epilogue }

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let headerEnd: [UInt8] = [cr, lf, cr, lf]

    /// `CRLF--boundary`; the stream is read as if it began with CRLF, so the first delimiter
    /// (which has none before it) matches too.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = [cr, lf]

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// True once the closing delimiter (`--boundary--`) was read.
    var isComplete: Bool { state == .epilogue }

    func feed(_ buffer: ByteBuffer, to handler: some MultipartStreamHandler) throws {
        guard state != .epilogue else { return }
        buffer.withUnsafeReadableBytes { pending.append(contentsOf: $0) }
        var position = 0
        defer { pending.removeSubrange(0..<position) }
        parsing: while position < pending.count {
            switch state {
            case .preamble, .body:
                if let match = find(delimiter, from: position) {
                    if state == .body {
                        try emit(position..<match, to: handler)
                        try handler.partEnds()
                    }
                    position = match + delimiter.count
                    state = .afterDelimiter
                } else {
                    // Anything before the last delimiter-length-minus-one bytes cannot begin a delimiter.
                    let safeEnd = max(position, pending.count - (delimiter.count - 1))
                    if state == .body { try emit(position..<safeEnd, to: handler) }
                    position = safeEnd
                    break parsing
                }
            case .afterDelimiter:
                guard pending.count - position >= 2 else { break parsing }
                if pending[position] == UInt8(ascii: "-"), pending[position + 1] == UInt8(ascii: "-") {
                    state = .epilogue
                    position = pending.count
                    break parsing
                }
                var index = position
                while index < pending.count, pending[index] == UInt8(ascii: " ") || pending[index] == UInt8(ascii: "\t") {
                    index += 1
                }
                guard index - position <= 64 else { throw MultipartSyntaxError(problem: "a boundary line is followed by junk") }
                guard pending.count - index >= 2 else { break parsing }
                guard pending[index] == Self.cr, pending[index + 1] == Self.lf else {
                    throw MultipartSyntaxError(problem: "a boundary line is followed by junk")
                }
                position = index + 2
                state = .headers
            case .headers:
                if pending.count - position >= 2, pending[position] == Self.cr, pending[position + 1] == Self.lf {
                    position += 2
                    try handler.partBegins(headers: [])
                    state = .body
                } else if let end = find(Self.headerEnd, from: position) {
                    guard end - position <= Self.maximumHeaderBytes else {
                        throw MultipartSyntaxError(problem: "a part's headers are longer than \(Self.maximumHeaderBytes) bytes")
                    }
                    let headers = try Self.parseHeaders(pending[position..<end])
                    position = end + Self.headerEnd.count
                    try handler.partBegins(headers: headers)
                    state = .body
                } else {
                    guard pending.count - position <= Self.maximumHeaderBytes else {
                        throw MultipartSyntaxError(problem: "a part's headers are longer than \(Self.maximumHeaderBytes) bytes")
                    }
                    break parsing
                }
            case .epilogue:
                position = pending.count
            }
        }
    }

    /// Checks the body ended with the closing delimiter.
    func finish() throws {
        switch state {
        case .epilogue: return
        case .preamble: throw MultipartSyntaxError(problem: "no part was found (the boundary does not occur in the body)")
        case .body: throw MultipartSyntaxError(problem: "the body ended in the middle of a part")
        case .headers, .afterDelimiter: throw MultipartSyntaxError(problem: "the body ended before its closing boundary")
        }
    }

    // MARK: - Helpers

    private func emit(_ range: Range<Int>, to handler: some MultipartStreamHandler) throws {
        guard !range.isEmpty else { return }
        try pending.withUnsafeBytes { bytes in
            try handler.partBody(UnsafeRawBufferPointer(rebasing: bytes[range]))
        }
    }

    /// The index of the first occurrence of `needle` in `pending` at or after `start`.
    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        pending.withUnsafeBytes { haystack -> Int? in
            needle.withUnsafeBytes { needleBytes -> Int? in
                guard let base = haystack.baseAddress, let needleBase = needleBytes.baseAddress,
                      let first = needle.first else { return nil }
                var offset = start
                while haystack.count - offset >= needle.count {
                    let searchLength = haystack.count - offset - needle.count + 1
                    guard let hit = memchr(base + offset, Int32(first), searchLength) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needleBase, needle.count) == 0 { return index }
                    offset = index + 1
                }
                return nil
            }
        }
    }

    /// `Name: value` lines separated by CRLF; names are RFC 7230 tokens, values UTF-8.
    static func parseHeaders(_ block: ArraySlice<UInt8>) throws -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        var lineStart = block.startIndex
        while lineStart < block.endIndex {
            var lineEnd = lineStart
            while lineEnd < block.endIndex, !(block[lineEnd] == cr && lineEnd + 1 < block.endIndex && block[lineEnd + 1] == lf) {
                lineEnd += 1
            }
            let line = block[lineStart..<lineEnd]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(isTokenByte),
                  let name = String(bytes: line[line.startIndex..<colon], encoding: .utf8),
                  let value = String(bytes: line[(colon + 1)...], encoding: .utf8)
            else {
                throw MultipartSyntaxError(problem: "a part has a malformed header line")
            }
            headers.append((name, value.trimmingCharacters(in: .whitespaces)))
            lineStart = lineEnd + 2
        }
        return headers
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
