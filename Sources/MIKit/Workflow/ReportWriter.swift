import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The printable PDF of a form, written by `mi-report`, the executable installed next to the
/// one running (`mi` for `mi print`, `mi-server` for the office's download). Cairo and pango
/// live only in `mi-report`, so no other command pays for loading them.
public enum ReportWriter {
    /// Writes the PDF of the form in `formFolder` to `output`. Blocks until mi-report ends; when
    /// `timeout` passes first, mi-report is killed and `ReportWriterError.timedOut` thrown.
    /// `pictures` is the folder of the pictures the form's template shows.
    public static func writePDF(of formFolder: URL, to output: URL, paper: String, pictures: URL? = nil,
                                timeout: TimeInterval? = nil) throws(ReportWriterError) {
        let here = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                       ?? CommandLine.arguments[0]).deletingLastPathComponent()
        let writer = here.appendingPathComponent("mi-report")
        guard FileManager.default.isExecutableFile(atPath: writer.path) else {
            throw .writerMissing(folder: here.path)
        }
        let process = Process()
        process.executableURL = writer
        process.arguments = [formFolder.path, output.path, paper] + (pictures.map { [$0.path] } ?? [])
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { throw .failed("mi-report could not be started: \(error.localizedDescription)") }
        let expired = Expiry()
        if let timeout {
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak process] in
                guard let process, process.isRunning else { return }
                expired.set()
                kill(pid, SIGKILL)
            }
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        if expired.isSet { throw .timedOut(seconds: Int(timeout ?? 0)) }
        guard process.terminationStatus == 0 else {
            let reason = message.hasPrefix("mi-report: ") ? String(message.dropFirst("mi-report: ".count)) : message
            throw .failed(reason.isEmpty ? "the PDF could not be written (mi-report exited with \(process.terminationStatus))" : reason)
        }
    }

    /// Set once by the timer that killed mi-report.
    private final class Expiry: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}

/// Why no PDF was written.
public enum ReportWriterError: ClassifiedError, Equatable {
    /// mi-report is not installed next to the running executable.
    case writerMissing(folder: String)
    /// mi-report ran and said why it could not write the PDF.
    case failed(String)
    /// mi-report took longer than allowed and was stopped.
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
        case .timedOut: return "pdf-timed-out"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .writerMissing(let folder):
            return "cannot print: mi-report is missing next to \(URL(fileURLWithPath: CommandLine.arguments.first ?? "mi").lastPathComponent) (\(folder)) — install the executables together"
        case .failed(let reason): return reason
        case .timedOut(let seconds): return "the PDF took longer than \(seconds) s to write and was stopped — try again; if it keeps happening, tell the administrator"
        }
    }
}
