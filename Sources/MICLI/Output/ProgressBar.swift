import Foundation
import MIKit
import MITransport
#if canImport(Glibc)
import Glibc
#endif

/// A progress bar on stderr — bytes sent of the whole upload, a bar, rate, time left — redrawn
/// in place on one line. Only when stderr is a terminal. The line always fits the terminal's
/// width (TIOCGWINSZ, else `COLUMNS`): a line as wide as the terminal wraps, and each redraw
/// would then leave a line behind.
final class ProgressBar: TransferProgress {
    private let label: String
    private let started = Date()
    private var last: (sent: Int64, total: Int64)?

    init?(label: String, enabled: Bool) {
        guard enabled, isatty(STDERR_FILENO) == 1 else { return nil }
        self.label = label
    }

    func update(sent: Int64, total: Int64) {
        last = (sent, total)
        draw(sent: sent, total: total, final: false)
    }

    /// Ends the bar's line: drawn once more with the whole size sent and the average rate.
    func finish() {
        guard let last else { return }
        draw(sent: last.sent, total: last.total, final: true)
        FileHandle.standardError.write(Data("\n".utf8))
        self.last = nil
    }

    private func draw(sent: Int64, total: Int64, final: Bool) {
        let rate = Double(sent) / max(Date().timeIntervalSince(started), 0.001)
        let line = Self.line(label: label, sent: sent, total: total, rate: rate, final: final,
                             width: Terminal.width(of: STDERR_FILENO))
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    }

    /// One drawing of the bar, at most `width - 1` characters (the last column is left free, so
    /// no terminal wraps it): `ana/pump-7 3.1 MiB / 8.0 MiB [#####     ] 38% ETA 0:04 1.2 MiB/s`.
    /// What does not fit goes, in this order: the bar narrows to 10, then the time left, the rate
    /// and the bar go, and the label is shortened in its middle.
    static func line(label: String, sent: Int64, total: Int64, rate: Double, final: Bool = false, width: Int) -> String {
        let limit = max(width - 1, 1)
        let fraction = total > 0 ? min(Double(sent) / Double(total), 1) : 0
        let sizes = total > 0 ? "\(Format.bytes(sent)) / \(Format.bytes(total))" : Format.bytes(sent)
        let percent = total > 0 ? " \(Int(fraction * 100))%" : ""
        var eta = ""
        if !final, total > 0, rate > 0, sent < total {
            let left = Int(Double(total - sent) / rate)
            eta = String(format: " ETA %d:%02d", left / 60, left % 60)
        }
        let speed = " \(Format.bytes(Int64(rate)))/s"
        func bar(_ cells: Int) -> String {
            guard total > 0, cells > 0 else { return "" }
            let filled = Int(fraction * Double(cells))
            return " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: cells - filled) + "]"
        }
        func compose(_ name: String, bar cells: Int, eta: String, speed: String) -> String {
            name + " " + sizes + bar(cells) + percent + eta + speed
        }
        // The widest bar (up to 30 cells) that fits beside everything else.
        let without = compose(label, bar: 0, eta: eta, speed: speed).count
        let room = limit - without - 3
        if room >= 10 { return compose(label, bar: min(room, 30), eta: eta, speed: speed) }
        for (cells, eta, speed) in [(10, eta, speed), (10, "", speed), (10, "", ""), (0, "", "")] {
            let line = compose(label, bar: cells, eta: eta, speed: speed)
            if line.count <= limit { return line }
        }
        let rest = compose("", bar: 0, eta: "", speed: "").count
        let name = TextWrap.middleEllipsis(label, width: max(limit - rest, 1))
        return String(compose(name, bar: 0, eta: "", speed: "").prefix(limit))
    }
}
