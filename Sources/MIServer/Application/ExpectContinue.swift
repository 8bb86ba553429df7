import HTTPTypes
import Hummingbird
import HummingbirdCore
import MIKit
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// HTTP/1.1 with `Expect: 100-continue` answered, within the client limits (`LimitedHTTP1Channel`).
///
/// Hummingbird 2's HTTP/1 server does not answer the expectation itself, and libcurl waits a
/// second for the `100 Continue` before sending any body over 1 MiB. The answer is sent the
/// moment a handler starts reading the body (as Go's net/http does), so a handler that refuses
/// first — no token (401), a technician (403), a Content-Length over the limit (413) — answers
/// with its final status instead and the client never sends the body. The connection is then
/// closed after the response: the client sent no body, so none is waiting to be drained.
extension HTTPServerBuilder {
    static func http1AnsweringContinue(idleTimeout: TimeAmount?, limits: Configuration.Server.Limits) -> HTTPServerBuilder {
        let counter = ConnectionCounter()
        return HTTPServerBuilder { responder in
            let base = HTTP1Channel(
                responder: { (request: Request, writer: consuming ResponseWriter, channel: any Channel) in
                    guard ContinueGate.isRequested(by: request.headers) else {
                        try await responder(request, writer, channel)
                        return
                    }
                    let gate = ContinueGate(channel: channel)
                    var request = request
                    request.body = RequestBody(asyncSequence: ContinueOnFirstRead(base: request.body, gate: gate))
                    try await responder(request, writer, channel)
                    if !gate.wasOpened {
                        channel.close(promise: nil)
                    }
                },
                configuration: .init(idleTimeout: idleTimeout))
            return LimitedHTTP1Channel(base: base, limits: limits, counter: counter)
        }
    }
}

/// Sends `100 Continue` once, before the first read of the body.
final class ContinueGate: Sendable {
    private let channel: any Channel
    private let opened = NIOLockedValueBox(false)

    init(channel: any Channel) { self.channel = channel }

    static func isRequested(by headers: HTTPFields) -> Bool {
        headers[values: .expect].contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
    }

    var wasOpened: Bool { opened.withLockedValue { $0 } }

    func open() async throws {
        let first = opened.withLockedValue { opened in
            defer { opened = true }
            return !opened
        }
        if first {
            try await channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue))).get()
        }
    }
}

/// The request body, opening the gate before its first element is awaited.
struct ContinueOnFirstRead: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let gate: ContinueGate

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let gate: ContinueGate
        var started = false

        mutating func next() async throws -> ByteBuffer? {
            if !started {
                started = true
                try await gate.open()
            }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), gate: gate) }
}
