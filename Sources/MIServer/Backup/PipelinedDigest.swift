import Crypto
import Foundation
import MIKit

/// SHA-256 of a stream of files on a second thread, so a backup reads and writes one chunk while
/// the chunk before it is hashed: on two cores the archive costs the larger of copying and
/// hashing, not their sum.
///
/// The caller takes a buffer (`take`), fills it, writes it out, and hands it over (`hash`); after
/// a file's last chunk it calls `endFile`. `digests()` waits for the thread and gives every
/// file's digest in the order the files ended. A few buffers circulate, so memory stays flat.
final class PipelinedDigest: @unchecked Sendable {
    static let chunkSize = 1 << 20
    private static let bufferCount = 4

    private enum Job {
        case chunk(buffer: Int, count: Int)
        case endFile
        case stop
    }

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
    }

    /// A free buffer (index and memory), waiting while all are being hashed.
    func take() -> (Int, UnsafeMutableRawBufferPointer) {
        condition.lock()
        while free.isEmpty { condition.wait() }
        let index = free.removeLast()
        condition.unlock()
        return (index, buffers[index])
    }

    /// The first `count` bytes of buffer `index` belong to the current file.
    func hash(buffer index: Int, count: Int) { enqueue(.chunk(buffer: index, count: count)) }

    /// Gives back a buffer that was taken but not handed over (a read failed).
    func giveBack(buffer index: Int) {
        condition.lock()
        free.append(index)
        condition.broadcast()
        condition.unlock()
    }

    /// The current file ends here; the next chunk begins another.
    func endFile() { enqueue(.endFile) }

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
            case let .chunk(index, count):
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffers[index][0..<count]))
                giveBack(buffer: index)
            case .endFile:
                let digest = Hex.lowercase(hasher.finalize())
                hasher = SHA256()
                condition.lock()
                finished.append(digest)
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
