import Foundation
import TestSupport
import XCTest

/// `mi templates import form.xlsx` and `mi templates export T --xlsform out.xlsx` on the real
/// binary: an XLSForm openpyxl wrote (with its CSV beside it) is imported with its warnings, its
/// export imports back to byte-identical template JSON, and a refused one leaves the cache as it was.
final class XLSFormCLITests: XCTestCase {
    static func oracle(_ sandbox: Sandbox, _ arguments: [String]) throws {
        let script = sandbox.repository.appendingPathComponent("Tests/MIXLSFormTests/Resources/xlsform_oracle.py")
        _ = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path] + arguments)
    }

    /// Every file under `folder` (recursively) with its bytes.
    static func snapshot(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url) { files[url.path] = data }
        }
        return files
    }

    func testImportExportAndImportAgain() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("forms")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let form = folder.appendingPathComponent("full.xlsx")
        try Self.oracle(sandbox, ["make", "full", form.path])

        let imported = try sandbox.run(["templates", "import", form.path])
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertTrue(imported.stdout.contains("Imported pumps_check v202611260945: Pump check"), imported.output)
        XCTAssertFalse(imported.stderr.contains("languages"), "every language is imported: \(imported.output)")
        XCTAssertTrue(imported.stderr.contains("appearance \"minimal\" (row 10)"), imported.output)
        let cached = sandbox.documents.appendingPathComponent(".templates/pumps_check.json")
        let first = try Data(contentsOf: cached)

        // A form can be started from it.
        XCTAssertFalse(try sandbox.newForm("pumps_check").isEmpty)

        let out = folder.appendingPathComponent("out.xlsx")
        let exported = try sandbox.run(["templates", "export", "pumps_check", "--xlsform", out.path])
        XCTAssertEqual(exported.status, 0, exported.output)
        XCTAssertTrue(exported.stdout.contains("Wrote pumps_check v202611260945 as an XLSForm to"), exported.output)
        let again = try sandbox.run(["templates", "export", "pumps_check", "--xlsform", out.path])
        XCTAssertEqual(again.status, 65, again.output)
        XCTAssertTrue(again.stderr.contains("already exists"), again.output)
        XCTAssertEqual(try sandbox.run(["templates", "export", "pumps_check", "--xlsform", out.path, "--force"]).status, 0)
        let missing = try sandbox.run(["templates", "export", "nothing-here", "--xlsform", folder.appendingPathComponent("n.xlsx").path])
        XCTAssertEqual(missing.status, 66, missing.output)

        // The export imported again gives the same template, to the byte.
        let reimported = try sandbox.run(["templates", "import", out.path, "--json"])
        XCTAssertEqual(reimported.status, 0, reimported.output)
        XCTAssertEqual(try Data(contentsOf: cached), first)
    }

    func testARefusalNamesTheCellsAndChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let folder = sandbox.root.appendingPathComponent("forms")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let form = folder.appendingPathComponent("full.xlsx")
        try Self.oracle(sandbox, ["make", "full", form.path])
        try FileManager.default.removeItem(at: folder.appendingPathComponent("districts.csv"))
        let good = folder.appendingPathComponent("untidy.xlsx")
        try Self.oracle(sandbox, ["make", "untidy", good.path])
        let cache = sandbox.documents.appendingPathComponent(".templates")
        let before = Self.snapshot(cache)
        XCTAssertFalse(before.isEmpty)

        // The good file is not imported either: a bad file changes nothing.
        let refused = try sandbox.run(["templates", "import", good.path, form.path])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("full.xlsx cannot be imported: sheet survey, row 13, column type (A): the choices file districts.csv is missing; put it beside the XLSForm (or upload it with the XLSForm) — nothing was imported"), refused.output)
        XCTAssertEqual(Self.snapshot(cache), before)

        let notAWorkbook = folder.appendingPathComponent("old.xlsx")
        try Data("type,name,label\n".utf8).write(to: notAWorkbook)
        let garbage = try sandbox.run(["templates", "import", notAWorkbook.path, "--json"])
        XCTAssertEqual(garbage.status, 65, garbage.output)
        XCTAssertTrue(garbage.output.contains("invalid-xlsform"), garbage.output)
        XCTAssertEqual(Self.snapshot(cache), before)
    }
}
