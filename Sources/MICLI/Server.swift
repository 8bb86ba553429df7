import Foundation
import MIKit
import MITransport
#if canImport(Glibc)
import Glibc
#endif

/// mi-server, as the session and Config.plist describe it.
enum ServerAccess {
    /// A client carrying the session's server token, or an error saying how to get one.
    static func client(_ context: Context) throws -> ServerClient {
        guard let token = context.session.validServerToken(now: Date()) else {
            throw context.session.serverToken == nil ? SessionError.offlineLogin : SessionError.serverTokenExpired
        }
        return ServerClient(server: context.configuration.server, token: token)
    }
}

/// A progress bar on stderr: bytes, rate, time left. Only when stderr is a terminal.
final class ProgressBar: TransferProgress {
    private let label: String
    private let started = Date()
    private var drawn = false

    init?(label: String, enabled: Bool) {
        guard enabled, isatty(STDERR_FILENO) == 1 else { return nil }
        self.label = label
    }

    func update(sent: Int64, total: Int64) {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(sent) / elapsed
        var line = "\r\(label) \(Format.bytes(sent))"
        if total > 0 {
            let fraction = min(Double(sent) / Double(total), 1)
            let width = 24
            let filled = Int(fraction * Double(width))
            line += " / \(Format.bytes(total)) [" + String(repeating: "#", count: filled)
                + String(repeating: " ", count: width - filled) + "] \(Int(fraction * 100))%"
            if rate > 0, sent < total {
                let left = Int(Double(total - sent) / rate)
                line += String(format: " ETA %d:%02d", left / 60, left % 60)
            }
        }
        line += " \(Format.bytes(Int64(rate)))/s\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
        drawn = false
    }
}
