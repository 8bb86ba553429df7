import CCurl
import Foundation

/// What libcurl's callbacks write to during one transfer. They reach it through an unretained
/// `Unmanaged` pointer (CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_XFERINFODATA), never through a
/// capturing closure; the caller keeps it alive for the length of `curl_easy_perform`.
final class TransferState {
    /// The response body, up to `maxBodyBytes`.
    private(set) var body = Data()
    let maxBodyBytes: Int
    /// Set when the body went over `maxBodyBytes` and the transfer was aborted.
    private(set) var bodyOverflowed = false
    /// The final response's header fields (those of a `100 Continue` are dropped).
    private(set) var headers: [(name: String, value: String)] = []

    private let progress: ProgressThrottle?
    /// Where the body goes instead of `body` (which then keeps its first bytes only).
    private let sink: DownloadSink?

    init(maxBodyBytes: Int, progress: ProgressThrottle?, sink: DownloadSink? = nil) {
        self.maxBodyBytes = maxBodyBytes
        self.progress = progress
        self.sink = sink
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate static func from(_ pointer: UnsafeMutableRawPointer?) -> TransferState? {
        pointer.map { Unmanaged<TransferState>.fromOpaque($0).takeUnretainedValue() }
    }

    fileprivate func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let sink {
            guard sink.write(bytes) else {
                bodyOverflowed = sink.overflowed
                return false
            }
            body = sink.prefix
            return true
        }
        guard body.count + bytes.count <= maxBodyBytes else {
            bodyOverflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()  // a new response begins (after `100 Continue` or a redirect)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers.append((name, value))
    }

    fileprivate func reportUpload(sent: Int64, total: Int64) {
        progress?.report(sent: sent, total: total)
    }

    /// Installs the write, header and (when there is a progress sink) transfer-info callbacks.
    func install(on easy: CurlEasy) throws {
        try easy.setWriteFunction(CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            let length = size * count
            guard let state = TransferState.from(context) else { return 0 }
            guard length > 0, let buffer else { return length }
            // Returning fewer bytes than given makes libcurl stop with CURLE_WRITE_ERROR.
            return state.appendBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
        }
        try easy.setPointer(CURLOPT_WRITEDATA, opaque)
        try easy.setWriteFunction(CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
            let length = size * count
            guard let state = TransferState.from(context) else { return 0 }
            if length > 0, let buffer {
                state.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length))
            }
            return length
        }
        try easy.setPointer(CURLOPT_HEADERDATA, opaque)
        guard progress != nil else { return }
        try easy.apply(.long(CURLOPT_NOPROGRESS, 0))
        try easy.setProgressFunction { context, _, _, uploadTotal, uploadNow in
            TransferState.from(context)?.reportUpload(sent: Int64(uploadNow), total: Int64(uploadTotal))
            return 0
        }
        try easy.setPointer(CURLOPT_XFERINFODATA, opaque)
    }
}

/// Passes upload progress to a `TransferProgress` at most `maximumRate` times a second, skipping
/// repeats and the zero totals libcurl reports before it knows the body's size.
final class ProgressThrottle {
    static let maximumRate = 10

    private let sink: TransferProgress
    private let interval: Duration
    private let clock = ContinuousClock()
    private var lastTime: ContinuousClock.Instant?
    private(set) var lastSent: Int64 = -1
    private(set) var lastTotal: Int64 = -1

    init(_ sink: TransferProgress) {
        self.sink = sink
        interval = .milliseconds(1000 / Self.maximumRate)
    }

    func report(sent: Int64, total: Int64) {
        guard total > 0, sent != lastSent || total != lastTotal else { return }
        let now = clock.now
        if let lastTime, now - lastTime < interval { return }
        deliver(sent: sent, total: total, at: now)
    }

    /// After a finished transfer: the final count, unless it was the last one reported.
    func reportCompletion(sent: Int64, total: Int64) {
        guard total > 0, sent != lastSent || total != lastTotal else { return }
        deliver(sent: sent, total: total, at: clock.now)
    }

    func finish() { sink.finish() }

    private func deliver(sent: Int64, total: Int64, at now: ContinuousClock.Instant) {
        lastTime = now
        lastSent = sent
        lastTotal = total
        sink.update(sent: sent, total: total)
    }
}
