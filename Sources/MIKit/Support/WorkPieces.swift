import Foundation

/// How work over many items is cut into pieces run side by side: the one rule for every
/// reader that spreads forms over the cores (the CLI's statistics and sweep, the server's
/// statistics and exports).
public enum WorkPieces {
    /// The cores this process may use (at least 1).
    public static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// `0..<count` cut into `min(count, pieces)` contiguous, non-empty ranges, in order, whose
    /// lengths differ by at most one (the first `count % pieces` are one longer). Together they
    /// cover every index exactly once; no range ever starts past the end, whatever `count` and
    /// `pieces` are. Empty for `count <= 0`; `pieces < 1` counts as 1.
    public static func ranges(of count: Int, pieces: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let pieces = min(count, max(1, pieces))
        let base = count / pieces, longer = count % pieces
        return (0..<pieces).map { piece in
            let start = piece * base + min(piece, longer)
            return start..<(start + base + (piece < longer ? 1 : 0))
        }
    }

    /// Runs `body` once for each of `ranges` (from `ranges(of:pieces:)`) on every core, with
    /// the piece's number and range; returns when all are done.
    public static func run(_ ranges: [Range<Int>], _ body: @Sendable (_ piece: Int, _ range: Range<Int>) -> Void) {
        DispatchQueue.concurrentPerform(iterations: ranges.count) { piece in body(piece, ranges[piece]) }
    }
}
