import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 connection over a plain socket, for what the test clients cannot do:
/// `Expect: 100-continue`, chunked bodies, reading interim responses. Use it off the
/// cooperative thread pool (`RawHTTPConnection.run`).
final class RawHTTPConnection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    private let fd: Int32
    private var buffered = Data()

    init(port: Int) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("localhost", String(port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "cannot resolve localhost")
        }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if socketFD >= 0 {
                if connect(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                    var timeout = timeval(tv_sec: 10, tv_usec: 0)
                    setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    fd = socketFD
                    return
                }
                close(socketFD)
            }
            candidate = info.pointee.ai_next
        }
        throw Failure(description: "cannot connect to localhost:\(port)")
    }

    deinit { close(fd) }

    /// Runs blocking socket work on a thread of its own.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Sends everything; false when the peer closed or reset the connection.
    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    func send(_ text: String) { send(Data(text.utf8)) }

    /// Sends `data` one byte every `interval` seconds, as a client on a failing link would;
    /// stops early and returns false when the server answered or closed meanwhile.
    @discardableResult
    func trickle(_ data: Data, interval: TimeInterval) -> Bool {
        for byte in data {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(interval * 1000)) > 0 { return false }
            guard send(Data([byte])) else { return false }
        }
        return true
    }

    /// Half-closes the connection: the server reads the end of the request stream.
    func shutdownSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads one response (interim ones included); the body by Content-Length.
    func readResponse() throws -> Response {
        let head = try readUntilBlankLine()
        let lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.first ?? ""
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else { throw Failure(description: "bad status line \(statusLine)") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        let body = try read(count: length)
        return Response(status: status, headers: headers, body: body)
    }

    /// True when the server closed the connection (read returns 0) within the receive timeout.
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(fd, &byte, 1, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw Failure(description: count == 0 ? "connection closed" : "receive failed: errno \(errno)") }
        buffered.append(contentsOf: chunk[0..<count])
    }

    private func readUntilBlankLine() throws -> String {
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let range = buffered.range(of: separator) {
                let head = String(decoding: buffered[buffered.startIndex..<range.lowerBound], as: UTF8.self)
                buffered = Data(buffered[range.upperBound...])
                return head
            }
            try fill()
        }
    }

    private func read(count: Int) throws -> Data {
        while buffered.count < count { try fill() }
        let data = Data(buffered.prefix(count))
        buffered = Data(buffered.dropFirst(count))
        return data
    }
}
