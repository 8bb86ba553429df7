import Foundation
import MIKit

/// Reads a file into fixed chunks on its own thread, one chunk ahead of the sender: while
/// libcurl sends chunk n, chunk n + 1 is read from disk and hashed (the whole file's SHA-256 in
/// the `HashingFileReader`, the chunk's own CRC-32C for its `Upload-Checksum`). Two buffers, so memory is
/// two chunks whatever the file's size.
///
/// The reader belongs to the pipeline's thread from `init` until `finish()` (or `cancel()`) has
/// joined it; the buffers are handed to the sender between `next()` and `release(_:)`. Those
/// hand-overs happen under the condition's lock, which is why it can be `@unchecked Sendable`.
final class ChunkPipeline: @unchecked Sendable {
    /// One chunk ready to send.
    struct Chunk {
        /// Where it starts in the file.
        let offset: Int64
        /// Its bytes, valid until `release`.
        let bytes: UnsafeRawBufferPointer
        /// `crc32c <base64>`, the value of `Upload-Checksum`.
        let checksum: String
        fileprivate let buffer: Int
    }

    private let reader: HashingFileReader
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let condition = NSCondition()
    private var ready: [Chunk] = []
    private var free: [Int]
    private var failure: (any Error)?
    private var atEnd = false
    private var cancelled = false
    private var running = true

    /// Starts reading `reader` (positioned at `offset`) in chunks of `chunkSize` bytes.
    init(reader: HashingFileReader, from offset: Int64, chunkSize: Int) {
        self.reader = reader
        buffers = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64) }
        free = [0, 1]
        let thread = Thread { [self] in produce(from: offset) }
        thread.name = "mi upload reader"
        thread.start()
    }

    deinit {
        cancel()
        for buffer in buffers { buffer.deallocate() }
    }

    /// The next chunk, nil after the last one; throws what reading the file threw.
    func next() throws -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && failure == nil && !atEnd { condition.wait() }
        if let failure { throw failure }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    /// Gives a sent chunk's buffer back for the next read.
    func release(_ chunk: Chunk) {
        condition.lock()
        free.append(chunk.buffer)
        condition.signal()
        condition.unlock()
    }

    /// After the last chunk: the file's digest (checked unchanged).
    func finish() throws -> PartDigest {
        join()
        return try reader.finish()
    }

    /// Stops the reading thread and waits for it.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
        join()
    }

    private func join() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    private func produce(from start: Int64) {
        var offset = start
        defer {
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        while true {
            condition.lock()
            while free.isEmpty && !cancelled { condition.wait() }
            if cancelled {
                condition.unlock()
                return
            }
            let index = free.removeFirst()
            condition.unlock()

            let buffer = buffers[index]
            let filled: Int
            let checksum: String
            do {
                let (count, digest) = try reader.readChunk(into: buffer)
                filled = count
                checksum = digest.headerValue
            } catch {
                condition.lock()
                failure = error
                condition.broadcast()
                condition.unlock()
                return
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
            condition.lock()
            if filled == 0 {
                atEnd = true
            } else {
                ready.append(Chunk(offset: offset, bytes: bytes, checksum: checksum, buffer: index))
            }
            condition.broadcast()
            condition.unlock()
            if filled == 0 { return }
            offset += Int64(filled)
        }
    }
}
