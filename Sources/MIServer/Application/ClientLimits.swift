import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import MIKit
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOSSL

/// Open connections per client address, shared by all connections of one server.
final class ConnectionCounter: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// Counts one more connection from `address`; returns how many are open now.
    func open(_ address: String) -> Int {
        counts.withLockedValue { counts in
            counts[address, default: 0] += 1
            return counts[address] ?? 0
        }
    }

    func close(_ address: String) {
        counts.withLockedValue { counts in
            let left = (counts[address] ?? 1) - 1
            counts[address] = left > 0 ? left : nil
        }
    }
}

/// HTTP/1.1 with the client limits of `Server.*TimeoutSeconds`, `Server.MinimumBytesPerSecond`
/// and `Server.MaxConnectionsPerAddress`: Hummingbird's channel with two handlers around its
/// HTTP codec, one watching raw bytes and reads, one watching requests and responses. A
/// kept-alive connection with no request under way is closed after `Server.IdleTimeoutSeconds`.
struct LimitedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let limits: Configuration.Server.Limits
    let counter: ConnectionCounter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits
        let counter = self.counter
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let address = channel.remoteAddress?.ipAddress ?? "unknown"
            let open = counter.open(address)
            channel.closeFuture.whenComplete { _ in counter.close(address) }
            let operations = channel.pipeline.syncOperations
            if open > limits.maxConnectionsPerAddress {
                let fault = ClientFault.tooManyConnections(limit: limits.maxConnectionsPerAddress)
                fault.log(logger, remote: channel.remoteAddress)
                // Behind TLS when there is TLS, so the client can read the answer.
                let tls = try? operations.handler(type: NIOSSLServerHandler.self)
                try operations.addHandler(RefusingHandler(fault: fault), position: tls.map { .after($0) } ?? .first)
                return value
            }
            let watch = ConnectionWatch(limits: limits, logger: logger)
            try operations.addHandler(RawBytesWatcher(watch: watch), position: .first)
            let decoded = RequestWatcher(watch: watch)
            if let state = try? operations.handler(type: HTTPConnectionStateHandler.self) {
                try operations.addHandler(decoded, position: .before(state))
            } else {
                try operations.addHandler(decoded, position: .last)
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The state both watchers share; only touched on the connection's event loop.
final class ConnectionWatch {
    enum Phase {
        /// Waiting for a request's head; `since` is when its first byte (or the connection) came.
        case awaitingHead(since: NIODeadline?)
        /// A head with `Expect: 100-continue`: the client waits for the server's word.
        case awaitingContinue
        /// Reading a request body.
        case body
        /// The request was refused before its body; nothing more is expected.
        case handling
        /// The connection was cut; what still arrives is dropped.
        case cut
    }

    let limits: Configuration.Server.Limits
    let logger: Logger
    var phase: Phase = .awaitingHead(since: .now())
    var lastByte = NIODeadline.now()
    var windowStart = NIODeadline.now()
    var windowBytes = 0
    /// A read is asked of the socket: while none is, the server is the slow side, not the client.
    var readPending = false
    /// A final response head was written and its end not yet.
    var responseOpen = false
    /// Requests whose head came and whose response has not ended: while there are any, an
    /// answer written here would cut into theirs.
    var unanswered = 0
    /// Since when the connection has had no request under way (the last response ended and no
    /// byte of another request came); nil while one is.
    var idleSince: NIODeadline?

    init(limits: Configuration.Server.Limits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func bytesArrived(_ count: Int, at now: NIODeadline) {
        switch phase {
        case .awaitingHead(since: nil):
            phase = .awaitingHead(since: now)
            idleSince = nil
        case .body:
            lastByte = now
            windowBytes += count
        default: break
        }
    }

    func startBody(at now: NIODeadline) {
        phase = .body
        lastByte = now
        windowStart = now
        windowBytes = 0
    }

    /// Marks the connection idle when nothing is under way: no request unanswered, and the
    /// last one read to its end.
    func noteIfIdle(at now: NIODeadline) {
        guard unanswered == 0, !responseOpen, case .awaitingHead(since: nil) = phase else { return }
        idleSince = now
    }

    /// Whether the connection has waited for its next request longer than `Server.IdleTimeoutSeconds`.
    func idleExpired(at now: NIODeadline) -> Bool {
        guard let idleSince, unanswered == 0, case .awaitingHead(since: nil) = phase else { return false }
        return now - idleSince > .seconds(Int64(limits.idleTimeoutSeconds))
    }

    /// The limit this moment breaks, if any.
    func check(at now: NIODeadline) -> ClientFault? {
        if !readPending {
            excuse(at: now)
            return nil
        }
        switch phase {
        case .awaitingHead(since: let since?):
            if now - since > .seconds(Int64(limits.headerTimeoutSeconds)) {
                return .headerTimeout(seconds: limits.headerTimeoutSeconds)
            }
        case .body:
            let window = TimeAmount.seconds(Int64(limits.bodyTimeoutSeconds))
            if now - lastByte > window {
                return .bodyStalled(seconds: limits.bodyTimeoutSeconds)
            }
            if now - windowStart >= window {
                let seconds = Double((now - windowStart).nanoseconds) / 1e9
                let rate = Int(Double(windowBytes) / seconds)
                if limits.minimumBytesPerSecond > 0, rate < limits.minimumBytesPerSecond {
                    return .bodyTooSlow(bytesPerSecond: rate, minimum: limits.minimumBytesPerSecond)
                }
                windowStart = now
                windowBytes = 0
            }
        default: break
        }
        return nil
    }

    /// The server holds the reads back (its consumer is busy): the client's clocks restart.
    private func excuse(at now: NIODeadline) {
        switch phase {
        case .awaitingHead(since: .some): phase = .awaitingHead(since: now)
        case .body: startBody(at: now)
        default: break
        }
    }

    /// How often the limits are checked: a quarter of the shortest timeout, between 0.1 and 1 s.
    var tick: TimeAmount {
        let shortest = min(limits.headerTimeoutSeconds, limits.bodyTimeoutSeconds, limits.idleTimeoutSeconds)
        return .milliseconds(Int64(max(100, min(1000, shortest * 250))))
    }
}

/// First in the pipeline: sees the raw bytes (a trickled header block too) and the reads asked
/// of the socket; drops what arrives after the connection was cut.
final class RawBytesWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let watch: ConnectionWatch

    init(watch: ConnectionWatch) { self.watch = watch }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .cut = watch.phase { return }
        watch.bytesArrived(unwrapInboundIn(data).readableBytes, at: .now())
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        watch.readPending = false
        if case .cut = watch.phase {
            // Drained and dropped until the connection closes (see `RequestWatcher.answer`).
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        watch.readPending = true
        context.read()
    }
}

/// After the HTTP codec: follows each request (head, body, end) and response, checks the
/// limits on a timer, answers malformed HTTP with the API's error body, and cuts clients that
/// are too slow: 408 while no response is under way, or the fault thrown into the request body
/// so the route answers it.
final class RequestWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let watch: ConnectionWatch
    private var timer: RepeatedTask?

    init(watch: ConnectionWatch) { self.watch = watch }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: watch.tick, delay: watch.tick) { _ in
            let (handler, context) = loopBound.value
            handler.check(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if case .cut = watch.phase { return }
            watch.unanswered += 1
            watch.idleSince = nil
            if ContinueGate.isRequested(by: head.headerFields) {
                watch.phase = .awaitingContinue
            } else {
                watch.startBody(at: .now())
            }
        case .body:
            break
        case .end:
            if case .cut = watch.phase { return }
            watch.phase = .awaitingHead(since: nil)
            watch.noteIfIdle(at: .now())
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.status == .continue {
                if case .awaitingContinue = watch.phase { watch.startBody(at: .now()) }
            } else if head.status.kind != .informational {
                watch.responseOpen = true
                if case .awaitingContinue = watch.phase { watch.phase = .handling }
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            watch.responseOpen = false
            watch.unanswered = max(0, watch.unanswered - 1)
            watch.noteIfIdle(at: .now())
            context.write(data, promise: promise)
            if case .cut = watch.phase {
                context.flush()
                context.close(promise: nil)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let fault = ClientFault(parserError)
        switch watch.phase {
        case .awaitingHead where watch.unanswered == 0:
            // No request is under way, so nothing else answers: the error body goes out here.
            fault.log(watch.logger, remote: context.remoteAddress)
            answer(fault, context: context)
        default:
            context.fireErrorCaught(error)
        }
    }

    private func check(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if watch.idleExpired(at: now) {
            // Nothing is under way and nothing is owed: closing is all a kept-alive connection
            // needs (clients open a new one for their next request).
            watch.logger.debug("idle connection closed", metadata: [
                "client": .string(context.remoteAddress?.ipAddress ?? "unknown"),
                "idleSeconds": .stringConvertible(watch.limits.idleTimeoutSeconds),
            ])
            watch.phase = .cut
            timer?.cancel()
            timer = nil
            context.close(promise: nil)
            return
        }
        guard let fault = watch.check(at: now) else { return }
        switch watch.phase {
        case .body:
            // The route reading the body gets the fault, answers with its status and logs it.
            if watch.responseOpen { fault.log(watch.logger, remote: context.remoteAddress) }
            watch.phase = .cut
            context.fireErrorCaught(fault)
            let channel = NIOLoopBound(context.channel, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .seconds(2)) { channel.value.close(promise: nil) }
        default:
            fault.log(watch.logger, remote: context.remoteAddress)
            if watch.unanswered > 0 {
                watch.phase = .cut
                context.close(promise: nil)
            } else {
                answer(fault, context: context)
            }
        }
    }

    /// Writes `fault` as a complete response and closes the connection: first the sending side,
    /// then, a second later, the whole — what the client still sends meanwhile is read and
    /// dropped, so the answer is not lost to a reset (the rest of an oversized header block).
    private func answer(_ fault: ClientFault, context: ChannelHandlerContext) {
        watch.phase = .cut
        timer?.cancel()
        let body = JSONResponse.errorBytes(message: fault.errorDescription ?? fault.code)
        let head = HTTPResponse(status: fault.status, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes),
            .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = NIOLoopBound(context.channel, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.value.close(mode: .output, promise: nil) }
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.value.close(promise: nil) }
        context.read()
    }
}

/// Answers a connection over `Server.MaxConnectionsPerAddress` with 503 and `Retry-After` as
/// soon as it opens, reads nothing of what it sends, and closes it a moment later (so the
/// answer is not lost to a reset while the client is still sending).
final class RefusingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let retryAfterSeconds = 5
    private let fault: ClientFault
    private var answered = false

    init(fault: ClientFault) { self.fault = fault }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let body = JSONResponse.errorBytes(message: fault.errorDescription ?? fault.code)
        var bytes = context.channel.allocator.buffer(capacity: body.readableBytes + 200)
        bytes.writeString("HTTP/1.1 \(fault.status.code) \(fault.status.reasonPhrase)\r\n"
            + "Retry-After: \(Self.retryAfterSeconds)\r\nContent-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: \(body.readableBytes)\r\nConnection: close\r\n\r\n")
        bytes.writeImmutableBuffer(body)
        let channel = NIOLoopBound(context.channel, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in
            channel.value.close(mode: .output, promise: nil)
        }
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.value.close(promise: nil) }
    }
}
