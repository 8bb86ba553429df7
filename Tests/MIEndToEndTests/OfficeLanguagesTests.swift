import Foundation
import TestSupport
import XCTest

/// A template in two languages end to end (issue 25 item 3): an XLSForm written by openpyxl
/// (`label::Español (es)`, `label::English (en)`, `default_language` Spanish) imported with the
/// real `mi`, a form filled with `mi fill --lang en` (piped), printed (pdftotext reads English),
/// uploaded to a real mi-server, and its submission page in chromium
/// (Resources/mi_office_browser.py `--languages`): in English as it was filled, in Spanish after
/// clicking the switch, and in English again after clicking back.
final class OfficeLanguagesTests: XCTestCase {
    static let workbook = #"""
import sys, openpyxl
book = openpyxl.Workbook()
survey = book.active
survey.title = "survey"
for row in [["type", "name", "label::Español (es)", "label::English (en)", "hint::Español (es)", "hint::English (en)"],
            ["text", "site", "Sitio", "Site", "Como en la puerta", "As on the gate"],
            ["select_one yn", "ok", "¿Todo bien?", "All fine?"]]:
    survey.append(row)
choices = book.create_sheet("choices")
for row in [["list_name", "name", "label::Español (es)", "label::English (en)"], ["yn", "yes", "Sí", "Yes"], ["yn", "no", "No", "No"]]:
    choices.append(row)
settings = book.create_sheet("settings")
settings.append(["form_id", "form_title", "default_language"])
settings.append(["bomba_lang", "Bomba", "Español (es)"])
book.save(sys.argv[1])
"""#

    func testAFormFilledInEnglishPrintedAndShownInBothLanguages() throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/pdftotext"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/setup.sh as root")
        }
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let xlsx = sandbox.root.appendingPathComponent("bomba_lang.xlsx")
        let script = sandbox.root.appendingPathComponent("make_workbook.py")
        try Data(Self.workbook.utf8).write(to: script)
        _ = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, xlsx.path])
        let imported = try sandbox.run(["templates", "import", xlsx.path])
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertFalse(imported.stderr.contains("languages"), imported.output)
        let cached = sandbox.documents.appendingPathComponent(".templates/bomba_lang.json")
        try FileManager.default.copyItem(at: cached, to: sandbox.root.appendingPathComponent("server-templates/bomba_lang.json"))
        let server = try RunningServer(sandbox)

        _ = try sandbox.newForm("bomba_lang", name: "b1")
        let filled = try sandbox.run(["fill", "b1", "--lang", "en"], stdin: "North plant\n1\n\n")
        XCTAssertEqual(filled.status, 0, filled.output)
        XCTAssertTrue(filled.output.contains("All fine?"), filled.output)
        XCTAssertFalse(filled.output.contains("¿Todo bien?"), filled.output)
        let form = try sandbox.formJSON("b1")
        XCTAssertEqual(form["language"] as? String, "English (en)")
        XCTAssertEqual((form["answers"] as? [String: Any]).flatMap { ($0["ok"] as? [String: Any])?["value"] as? [String] }, ["yes"],
                       "answers are names, whatever the language")

        let pdf = sandbox.root.appendingPathComponent("b1.pdf")
        let printed = try sandbox.run(["print", "b1", "--output", pdf.path])
        XCTAssertEqual(printed.status, 0, printed.output)
        let text = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-enc", "UTF-8", pdf.path, "-"])
        XCTAssertEqual(text.status, 0, text.stderr)
        for english in ["Site", "All fine?", "Yes", "North plant"] { XCTAssertTrue(text.stdout.contains(english), "\(english) in \(text.stdout)") }
        for spanish in ["Sitio", "¿Todo bien?"] { XCTAssertFalse(text.stdout.contains(spanish), "\(spanish) in \(text.stdout)") }

        let submitted = try sandbox.run(["submit", "b1"])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let id = try XCTUnwrap(try sandbox.formJSON("b1", in: "CompletedMIs")["id"] as? String).lowercased()
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)

        let facts: [String: Any] = [
            "fionaPassword": TestDirectory.password(for: "fiona"), "id": id,
            "first": ["language": "English (en)", "texts": ["Site", "All fine?", "Yes"], "absent": ["Sitio", "¿Todo bien?"]],
            "second": ["language": "Español (es)", "texts": ["Sitio", "¿Todo bien?", "Sí", "Como en la puerta"], "absent": ["All fine?"]],
            "answer": "North plant",
        ]
        let run = try OfficeBrowserTests.browse(sandbox, mode: ["--languages"], facts: facts, screenshots: "languages-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 6 steps passed"), "not every step ran and passed:\n\(run.stdout)")
        withExtendedLifetime(server) {}
    }
}
