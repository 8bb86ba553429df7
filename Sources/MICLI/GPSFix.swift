import Foundation
import MIDevices
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// A position from gpsd (`Location.GPSD`) for `mi new`, `mi answer --gps` and `mi fill`: the wait
/// shows the accuracy so far on stderr when it is a terminal, and ends at the timeout.
enum GPSFix {
    /// The default wait, in seconds: a receiver with a view of the sky has a fix well within it.
    static let defaultTimeout = 30

    /// The configured gpsd (the loader has checked the text, so this fails only on an edited value).
    static func address(_ configuration: Configuration) throws -> GPSDAddress {
        try GPSDAddress(configuration.location.gpsd)
    }

    /// The first fix accurate to `accuracy` metres (any when nil) within `timeout` seconds.
    static func take(_ configuration: Configuration, accuracy: Double?, timeout: Int) throws -> Geopoint {
        let client = GPSDClient(address: try address(configuration))
        let meter = GPSMeter(address: client.address, timeout: timeout, accuracy: accuracy)
        defer { meter?.finish() }
        return try client.fix(accuracy: accuracy, timeout: .seconds(timeout)) { meter?.show($0) }
    }
}

/// `waiting for a GPS fix from 127.0.0.1:2947 (7 s of 30): ±35 m, best ±12 m, need ±10 m`,
/// redrawn on one stderr line; nil (silent) when stderr is not a terminal.
final class GPSMeter {
    private let address: GPSDAddress
    private let timeout: Int
    private let accuracy: Double?
    private var drawn = false

    init?(address: GPSDAddress, timeout: Int, accuracy: Double?) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.address = address
        self.timeout = timeout
        self.accuracy = accuracy
    }

    func show(_ progress: GPSProgress) {
        var line = "\rwaiting for a GPS fix from \(address) (\(Int(progress.elapsed)) s of \(timeout)): "
        if let current = progress.accuracy {
            line += "±\(formatNumber(current.rounded())) m"
        } else {
            line += progress.mode >= 2 ? "fix of unknown accuracy" : "no fix yet"
        }
        if let best = progress.bestAccuracy { line += ", best ±\(formatNumber(best.rounded())) m" }
        if let accuracy { line += ", need ±\(formatNumber(accuracy)) m" }
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}

/// No position came from gpsd: gpsd's own message, and how to type the location instead. The
/// class and code are gpsd's (75 for nothing listening, no fix or a timeout).
struct GPSFixError: ClassifiedError {
    let underlying: GPSDError
    /// The command that types the location instead.
    let typed: String

    var failureClass: FailureClass { underlying.failureClass }
    var code: String { underlying.code }
    var errorDescription: String? {
        "\(underlying.errorDescription ?? underlying.code); nothing was saved — type the location instead: \(typed)"
    }
}
