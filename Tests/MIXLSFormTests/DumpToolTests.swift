import Foundation
import MIXLSForm
import TestSupport
import XCTest

/// The built `xlsx-dump`: what it prints is what openpyxl reads; a bad file is one line on stderr and exit 1.
final class DumpToolTests: XCTestCase {
    static let binary: URL = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("xlsx-dump"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("xlsx-dump"),
            repository.appendingPathComponent(".build/debug/xlsx-dump"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }()

    func testTheBinaryPrintsWhatOpenpyxlReads() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        for kind in ["types", "dates1904", "layout"] {
            let url = try Oracle.make(kind, in: folder)
            let printed = try ToolRun.output(Self.binary, [url.path])
            var mine = try JSONDecoder().decode(Oracle.Dump.self, from: Data(printed.utf8))
            let theirs = try Oracle.dump(url)
            for index in theirs.sheets.indices { mine.sheets[index].bold = theirs.sheets[index].bold }
            if kind == "types" {
                // openpyxl leaves Excel's _x000D_ escape undecoded in inline strings.
                let raw = try XCTUnwrap(mine.sheets.firstIndex { $0.name == "Raw cells" })
                let cell = try XCTUnwrap(mine.sheets[raw].cells.firstIndex { $0.row == 1 && $0.column == 6 })
                XCTAssertEqual(mine.sheets[raw].cells[cell].value, "A\rB")
                mine.sheets[raw].cells[cell].value = "A_x000D_B"
            }
            XCTAssertEqual(mine, theirs, kind)
        }
    }

    func testTheBinaryRefusesABadFileWithOneLine() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("huge-shared-string-index", in: folder, hostile: true)
        XCTAssertThrowsError(try ToolRun.output(Self.binary, [url.path])) { error in
            guard let failure = error as? ToolRun.Failure else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.status, 1)
            XCTAssertEqual(failure.message,
                           "xlsx-dump: sheet survey, cell A1: shared string number 99999999999999999999999 does not exist (the table has 2)\n")
        }
    }
}
