import Foundation

/// The printable PDF of a form, drawn by `mi-report` (installed next to `mi` and `mi-server`, so
/// only printing loads cairo and pango). `mi print` and the office's report.pdf both go through here.
public enum ReportWriter {
    /// `mi-report` in the folder of the running executable.
    public static func executable() throws(ReportWriterError) -> URL {
        let running = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                          ?? CommandLine.arguments[0])
        let writer = running.deletingLastPathComponent().appendingPathComponent("mi-report")
        guard FileManager.default.isExecutableFile(atPath: writer.path) else {
            throw .writerMissing(folder: running.deletingLastPathComponent().path, besides: running.lastPathComponent)
        }
        return writer
    }

    /// Writes the PDF of the form in `formFolder` (its form.json and media) to `output`, on
    /// `paper` (`a4`, `letter` or `auto`: from the locale). Blocks until mi-report ends; with a
    /// `timeout`, mi-report is stopped after that many seconds and `.timedOut` thrown.
    public static func writePDF(of formFolder: URL, to output: URL, paper: String,
                                timeout: TimeInterval? = nil) throws(ReportWriterError) {
        let writer = try executable()
        let run: ChildProcess.Outcome
        do {
            run = try ChildProcess.run(writer, arguments: [formFolder.path, output.path, paper], timeout: timeout)
        } catch {
            throw .failed("mi-report could not be started: \(error.localizedDescription)")
        }
        if run.timedOut, let timeout { throw .timedOut(seconds: Int(timeout.rounded(.up))) }
        guard run.status == 0 else {
            let message = run.errors
            let reason = message.hasPrefix("mi-report: ") ? String(message.dropFirst("mi-report: ".count)) : message
            throw .failed(reason.isEmpty ? "the PDF could not be written (mi-report exited with \(run.status))" : reason)
        }
    }
}

/// A helper program run to its end: its exit status and what it wrote to stderr.
public enum ChildProcess {
    public struct Outcome: Sendable {
        public var status: Int32
        /// stderr, trimmed.
        public var errors: String
        /// It was stopped (SIGTERM) because it ran past the timeout.
        public var timedOut: Bool
    }

    /// Runs `executable` with stdout discarded; blocks until it exits, or until `timeout`
    /// seconds have passed, when it is terminated.
    public static func run(_ executable: URL, arguments: [String], timeout: TimeInterval? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let expired = TimeoutFlag()
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if process.isRunning {
                    expired.set()
                    process.terminate()
                }
            }
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, errors: message, timedOut: expired.isSet)
    }

    private final class TimeoutFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    }
}

/// Why a form's PDF was not written.
public enum ReportWriterError: ClassifiedError, Equatable {
    /// `mi-report` is not installed next to the running executable.
    case writerMissing(folder: String, besides: String)
    /// mi-report refused or failed; its own message.
    case failed(String)
    /// mi-report ran past the time allowed.
    case timedOut(seconds: Int)

    public var failureClass: FailureClass {
        switch self {
        case .writerMissing: return .configuration
        case .failed, .timedOut: return .refused
        }
    }

    public var code: String {
        switch self {
        case .writerMissing: return "mi-report-missing"
        case .failed: return "pdf-failed"
        case .timedOut: return "pdf-timeout"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .writerMissing(let folder, let besides):
            return "cannot print: mi-report is missing next to \(besides) (\(folder)) — install the executables together"
        case .failed(let reason): return reason
        case .timedOut(let seconds):
            return "the PDF took longer than \(seconds) s and was stopped — try again, or print the form with `mi print`"
        }
    }
}
