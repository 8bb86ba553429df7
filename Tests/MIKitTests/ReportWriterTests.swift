import Foundation
import MIKit
import TestSupport
import XCTest

/// `ReportWriter`, behind `mi print` and the office's PDF: mi-report's refusal comes back as
/// its own message, and nothing is left where the PDF would have gone.
final class ReportWriterTests: XCTestCase {
    func testAFolderWithoutAFormIsRefusedWithMiReportsMessage() throws {
        // The test bundle runs from the build folder, where mi-report is built too.
        let folder = try TemporaryDirectory(prefix: "mi-report-writer")
        let output = folder.url.appendingPathComponent("out.pdf")
        XCTAssertThrowsError(try ReportWriter.writePDF(of: folder.url, to: output, paper: "a4", timeout: 60)) { error in
            XCTAssertEqual((error as? ReportWriterError)?.code, "pdf-failed", "\(error)")
            XCTAssertFalse(error.localizedDescription.hasPrefix("mi-report: "), error.localizedDescription)
            XCTAssertFalse(error.localizedDescription.isEmpty)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }
}
