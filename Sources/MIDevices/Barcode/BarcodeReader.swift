import Foundation
import MIKit

/// Reads barcodes and QR codes from a photo with Debian's `zbarimg` (package `zbar-tools`):
/// `zbarimg --raw -q --nodbus -- FILE`, run directly (never through a shell), so any file name is
/// passed as it is. zbarimg knows EAN/UPC, Code 128, Code 39, Code 93, Interleaved 2 of 5,
/// Codabar, DataBar, QR codes and more.
public struct BarcodeReader: Sendable {
    /// zbarimg, when found.
    public let executable: URL?

    /// zbarimg from `PATH` (`/usr/bin` and `/bin` when the process has none), or the one given.
    public init(executable: URL? = nil, path: String? = ProcessInfo.processInfo.environment["PATH"]) {
        self.executable = executable ?? Self.find("zbarimg", in: path)
    }

    /// The decoded text of every code in the image, in the order zbarimg reports them (one
    /// line each: a code whose text holds a line break comes back as several lines). zbarimg is
    /// stopped (SIGTERM, then SIGKILL) when it takes longer than `timeout`.
    public func read(imageAt url: URL, timeout: Duration = .seconds(30)) throws(BarcodeError) -> [String] {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .noSuchFile(path) }
        guard !isDirectory.boolValue else { throw .notAFile(path) }
        guard let executable else { throw .toolMissing }

        let process = Process()
        process.executableURL = executable
        process.arguments = ["--raw", "-q", "--nodbus", "--", path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw .toolMissing }
        // Both pipes drain at once, so neither can fill and stall zbarimg.
        let errorText = PipeText()
        let drained = DispatchSemaphore(value: 0)
        let errorHandle = errors.fileHandleForReading
        DispatchQueue.global().async {
            errorText.set(errorHandle.readDataToEndOfFile())
            drained.signal()
        }
        let watchdog = Watchdog(process)
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(timeout)) { watchdog.stop() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        if watchdog.fired {
            throw .timedOut(path, seconds: Int(Self.seconds(timeout).rounded(.up)))
        }

        let reason = errorText.summary
        switch process.terminationStatus {
        case 0:
            let codes = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
                .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
            guard !codes.isEmpty else { throw .noCode(path) }
            return codes
        case 4:
            throw .noCode(path)
        case 1, 2:
            throw .unreadable(path, reason: reason.isEmpty ? "zbarimg gave no reason" : reason)
        default:
            throw .failed(path, status: process.terminationStatus, reason: reason)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The first executable `name` in the colon-separated `path` (`/usr/bin` and `/bin` without one).
    static func find(_ name: String, in path: String?) -> URL? {
        let folders = path.map { $0.split(separator: ":").map(String.init) } ?? ["/usr/bin", "/bin"]
        for folder in folders where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// Stops zbarimg once its time is up, and remembers that it did.
private final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private let process: Process
    private var stopped = false

    init(_ process: Process) { self.process = process }

    var fired: Bool { lock.withLock { stopped } }

    func stop() {
        let pid: Int32? = lock.withLock {
            guard process.isRunning else { return nil }
            stopped = true
            return process.processIdentifier
        }
        guard let pid else { return }
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [process] in
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }
}

/// What zbarimg wrote to standard error, handed from the reading thread.
private final class PipeText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func set(_ data: Data) { lock.withLock { self.data = data } }

    /// The last meaningful line, without zbarimg's `ERROR: ` prefix and ImageMagick's source location.
    var summary: String {
        let text = lock.withLock { String(decoding: data, as: UTF8.self) }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("Connection ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard var line = lines.last else { return "" }
        if line.hasPrefix("ERROR: ") { line.removeFirst(7) }
        if let at = line.range(of: " @ ", options: .backwards) { line = String(line[..<at.lowerBound]) }
        return SafeName.printable(String(line.prefix(300)))
    }
}
