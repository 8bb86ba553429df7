import Foundation
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// Takes a position from gpsd over its JSON protocol: connects to `address`, asks it to watch
/// (`?WATCH={"enable":true,"json":true};`), and reads TPV reports until one is a fix (mode 2 or 3)
/// accurate enough, or the time is up. Plain POSIX sockets with `poll`, so every step — the
/// connection included — keeps to the one deadline. Blocking: call it off any event loop.
public struct GPSDClient: Sendable {
    public let address: GPSDAddress

    /// The longest line gpsd's reports reach is a few kilobytes; a peer sending more without a
    /// line end is not gpsd.
    static let longestLine = 1 << 20

    public init(address: GPSDAddress = .local) {
        self.address = address
    }

    /// The first fix whose accuracy is `accuracy` metres or better (any fix when nil), within
    /// `timeout`. `progress` is called for every position report gpsd sends while waiting.
    public func fix(accuracy limit: Double? = nil, timeout: Duration = .seconds(30),
                    progress: (GPSProgress) -> Void = { _ in }) throws(GPSDError) -> Geopoint {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: timeout)
        let socket = try connect(until: deadline, clock: clock)
        defer { close(socket) }
        try send(Array(#"?WATCH={"enable":true,"json":true};"#.utf8) + [10], on: socket, until: deadline, clock: clock)

        var buffer: [UInt8] = []
        var devices: Int?
        var lastMode: Int?
        var best: Geopoint?
        let seconds = Self.wholeSeconds(timeout)
        while true {
            while let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                buffer.removeSubrange(...newline)
                guard !line.isEmpty else { continue }
                switch GPSDReport.parse(Substring(line)) {
                case .position(let mode, let point):
                    lastMode = mode
                    if let point, (best?.accuracy ?? .infinity) >= (point.accuracy ?? .infinity) { best = point }
                    progress(GPSProgress(elapsed: Self.seconds(start.duration(to: clock.now)), mode: mode,
                                         accuracy: point?.accuracy, bestAccuracy: best?.accuracy))
                    if let point {
                        guard let limit else { return point }
                        if let accuracy = point.accuracy, accuracy <= limit { return point }
                    }
                case .devices(let count):
                    devices = count
                case .error(let message):
                    throw .refused(address, message: message)
                case .malformed(let detail):
                    throw .malformed(address, detail: detail)
                case .other:
                    break
                }
            }
            guard buffer.count <= Self.longestLine else {
                throw .malformed(address, detail: "more than 1 MiB without a line end")
            }
            guard let bytes = try receive(on: socket, until: deadline, clock: clock) else {
                throw .noFix(address, seconds: seconds, detail: Self.noFixDetail(devices: devices, mode: lastMode, best: best, limit: limit))
            }
            guard !bytes.isEmpty else { throw .closed(address) }
            buffer += bytes
        }
    }

    /// Why the wait ended without a fix: the best fix seen when one was not accurate enough, else
    /// the receiver's own "no fix" reports, else gpsd's empty device list (checked last, because
    /// gpsd may list no device yet when the watch starts and add the receiver a moment later).
    static func noFixDetail(devices: Int?, mode: Int?, best: Geopoint?, limit: Double?) -> String {
        if let best, let limit {
            let accuracy = best.accuracy.map { "±\(formatNumber($0)) m" } ?? "of unknown accuracy"
            return "the best fix was \(accuracy), not the \(formatNumber(limit)) m required — move to open sky and try again"
        }
        if mode != nil { return "the receiver reports no fix yet — move to open sky and try again" }
        if devices == 0 { return "gpsd has no GPS receiver attached — plug one in (or start gpsd with its device)" }
        return "no position report arrived — is the receiver attached and powered?"
    }

    // MARK: - Socket

    /// A connected, non-blocking TCP socket to the first of the host's addresses that accepts.
    private func connect(until deadline: ContinuousClock.Instant, clock: ContinuousClock) throws(GPSDError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard status == 0, let list else {
            throw .unreachable(address, reason: "the host is unknown (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(list) }
        var refused = false
        var lastReason = "no address to connect to"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let info = current.pointee
            let socket = Glibc.socket(info.ai_family, info.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
            guard socket >= 0 else { lastReason = Self.errorText(errno); continue }
            var result = Glibc.connect(socket, info.ai_addr, info.ai_addrlen)
            var failure = result == 0 ? 0 : errno
            if result != 0 && failure == EINPROGRESS {
                var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                result = Self.poll(&descriptor, until: deadline, clock: clock)
                if result == 0 {
                    close(socket)
                    throw .unreachable(address, reason: "it did not answer the connection in time")
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                failure = result < 0 ? errno : error
            }
            if failure == 0 { return socket }
            close(socket)
            if failure == ECONNREFUSED { refused = true }
            lastReason = Self.errorText(failure)
        }
        if refused { throw .notListening(address) }
        throw .unreachable(address, reason: lastReason)
    }

    private func send(_ bytes: [UInt8], on socket: Int32, until deadline: ContinuousClock.Instant, clock: ContinuousClock) throws(GPSDError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { offset += sent; continue }
            let failure = errno
            guard sent < 0, failure == EAGAIN || failure == EINTR else {
                if failure == EPIPE || failure == ECONNRESET { throw .closed(address) }
                throw .unreachable(address, reason: Self.errorText(failure))
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            guard Self.poll(&descriptor, until: deadline, clock: clock) > 0 else {
                throw .noFix(address, seconds: Self.wholeSeconds(clock.now.duration(to: deadline)), detail: "gpsd did not take the watch request")
            }
        }
    }

    /// The next bytes: empty when the peer closed, nil when the deadline passed first.
    private func receive(on socket: Int32, until deadline: ContinuousClock.Instant, clock: ContinuousClock) throws(GPSDError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = Self.poll(&descriptor, until: deadline, clock: clock)
            if ready == 0 { return nil }
            if ready < 0 { throw .unreachable(address, reason: Self.errorText(errno)) }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(chunk[..<count]) }
            if count == 0 { return [] }
            let failure = errno
            if failure == EAGAIN || failure == EINTR { continue }
            if failure == ECONNRESET { throw .closed(address) }
            throw .unreachable(address, reason: Self.errorText(failure))
        }
    }

    /// `poll` on one descriptor until the deadline, retrying on EINTR: > 0 ready, 0 timed out, < 0 failed.
    private static func poll(_ descriptor: inout pollfd, until deadline: ContinuousClock.Instant, clock: ContinuousClock) -> Int32 {
        while true {
            let left = clock.now.duration(to: deadline)
            if left <= .zero { return 0 }
            // Rounded up, so the wait ends after the deadline, not a millisecond before; at most ~24 days a call.
            let milliseconds = Int32(min(seconds(left) * 1000 + 1, Double(Int32.max)))
            let ready = Glibc.poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func wholeSeconds(_ duration: Duration) -> Int { Int(max(0, seconds(duration)).rounded()) }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
