import Crypto
import Foundation
import MIKit

/// SHA-256 of a stream of files on a second thread, so a backup reads and writes one chunk while
/// the chunk before it is hashed: on two cores the archive costs the larger of copying and
/// hashing, not their sum.
///
/// The caller takes a buffer (`take`), fills it, writes it out, and hands it over (`hash`, with
/// `endsFile` on a file's last chunk: one wake of the thread per chunk). `digests()` waits for
/// the thread and gives every file's digest in the order the files ended. A few buffers
/// circulate, so memory stays flat. Small files are not worth a hand-over (waking the thread
/// costs more than hashing a few kilobytes): the caller hashes those itself in `inlineBuffer`.
final class PipelinedDigest: @unchecked Sendable {
    static let chunkSize = 1 << 20
    /// Files up to this size are hashed by the caller (`inlineBuffer`).
    static let inlineBytes = 64 << 10
    private static let bufferCount = 4

    private enum Job {
        case chunk(buffer: Int, count: Int, endsFile: Bool)
        case stop
    }

    /// The caller's own buffer for a small file, read, hashed and written on its thread.
    let inlineBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: inlineBytes, alignment: 64)

    private let condition = NSCondition()
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var free: [Int]
    private var jobs: [Job] = []
    private var finished: [String] = []
    private var stopped = false

    /// Starts the hashing thread; `digests()` must be called once to stop it.
    init() {
        buffers = (0..<Self.bufferCount).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 64)
        }
        free = Array(0..<Self.bufferCount)
        let thread = Thread { [self] in run() }
        thread.name = "mi-backup-sha256"
        thread.start()
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
        inlineBuffer.deallocate()
    }

    /// A free buffer (index and memory), waiting while all are being hashed.
    func take() -> (Int, UnsafeMutableRawBufferPointer) {
        condition.lock()
        while free.isEmpty { condition.wait() }
        let index = free.removeLast()
        condition.unlock()
        return (index, buffers[index])
    }

    /// The first `count` bytes of buffer `index` belong to the current file; with `endsFile`
    /// they are its last, and the next chunk begins another.
    func hash(buffer index: Int, count: Int, endsFile: Bool) { enqueue(.chunk(buffer: index, count: count, endsFile: endsFile)) }

    /// Gives back a buffer that was taken but not handed over (a read failed).
    func giveBack(buffer index: Int) {
        condition.lock()
        free.append(index)
        condition.broadcast()
        condition.unlock()
    }

    /// Every file's digest (lowercase hex), in order, once the thread has hashed them all.
    func digests() -> [String] {
        enqueue(.stop)
        condition.lock()
        while !stopped { condition.wait() }
        let result = finished
        condition.unlock()
        return result
    }

    private func enqueue(_ job: Job) {
        condition.lock()
        jobs.append(job)
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        var hasher = SHA256()
        var next = 0
        while true {
            condition.lock()
            while next >= jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next > 64 {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            switch job {
            case let .chunk(index, count, endsFile):
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffers[index][0..<count]))
                var digest: String?
                if endsFile {
                    digest = Hex.lowercase(hasher.finalize())
                    hasher = SHA256()
                }
                condition.lock()
                free.append(index)
                if let digest { finished.append(digest) }
                condition.broadcast()
                condition.unlock()
            case .stop:
                condition.lock()
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }
}
