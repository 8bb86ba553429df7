import NIOCore

/// Body buffers gathered into batches of at least `minimumBytes` before they go to the thread
/// pool: bounds memory per request and keeps the number of thread hops low.
struct BodyBatch {
    /// An upload's batch (a submission's multipart body, a resumable upload's PATCH): bounds
    /// memory per upload and keeps the number of thread hops low.
    static let uploadBytes = 256 * 1024

    let minimumBytes: Int
    private var buffers: [ByteBuffer] = []
    private var bytes = 0

    init(minimumBytes: Int) { self.minimumBytes = minimumBytes }

    /// Adds a buffer; returns the batch to hand over once it holds `minimumBytes`, else nil.
    mutating func add(_ buffer: ByteBuffer) -> [ByteBuffer]? {
        buffers.append(buffer)
        bytes += buffer.readableBytes
        guard bytes >= minimumBytes else { return nil }
        return take()
    }

    /// What is left (possibly nothing), emptying the batch.
    mutating func take() -> [ByteBuffer] {
        defer {
            buffers = []
            bytes = 0
        }
        return buffers
    }
}
