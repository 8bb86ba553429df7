import Foundation
import MIKit
import TestSupport
import XCTest

/// The child processes behind `mi print` and the office's PDF: exit status, stderr, timeout.
final class ReportWriterTests: XCTestCase {
    func testAChildRunningPastItsTimeoutIsStopped() throws {
        let start = Date()
        let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/sleep"), arguments: ["20"], timeout: 0.3)
        XCTAssertTrue(run.timedOut)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testStatusAndStandardErrorComeBack() throws {
        let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo ' broken ' >&2; exit 3"], timeout: 20)
        XCTAssertEqual(run.status, 3)
        XCTAssertEqual(run.errors, "broken")
        XCTAssertFalse(run.timedOut)
    }

    func testAFolderWithoutAFormIsRefusedWithMiReportsMessage() throws {
        // The test bundle runs from the build folder, where mi-report is built too.
        guard (try? ReportWriter.executable()) != nil else {
            return XCTAssertThrowsError(try ReportWriter.writePDF(of: URL(fileURLWithPath: "/nonexistent"), to: URL(fileURLWithPath: "/tmp/x.pdf"), paper: "a4")) { error in
                XCTAssertEqual((error as? ReportWriterError)?.code, "mi-report-missing")
            }
        }
        let folder = try TemporaryDirectory(prefix: "mi-report-writer")
        let output = folder.url.appendingPathComponent("out.pdf")
        XCTAssertThrowsError(try ReportWriter.writePDF(of: folder.url, to: output, paper: "a4", timeout: 60)) { error in
            XCTAssertEqual((error as? ReportWriterError)?.code, "pdf-failed", "\(error)")
            XCTAssertFalse(error.localizedDescription.hasPrefix("mi-report: "), error.localizedDescription)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }
}
