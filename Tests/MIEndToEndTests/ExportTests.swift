import Foundation
import XCTest

/// `mi export` end to end: simulated and hand-answered forms submitted with the real `mi`, the
/// zip checked by Resources/mi_export_check.py with Python's zipfile and csv and converted by
/// LibreOffice to xlsx (no mojibake), media byte-identical; JSON Lines; the errors' exit
/// statuses, and no file left at --output when an export fails.
final class ExportTests: XCTestCase {
    static let notes = #"Ñuñoa, "quoted""#
    static let comment = "line one\nline two"

    /// The issue's columns for a template file of Samples/templates, built here from the JSON
    /// rather than by MI's layout.
    static func header(of templateFile: URL) throws -> [String] {
        let template = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: templateFile)) as? [String: Any])
        var header = ["SubmissionDate"]
        for question in try XCTUnwrap(template["questions"] as? [[String: Any]]) {
            let id = try XCTUnwrap(question["id"] as? String)
            switch question["type"] as? String {
            case "multipleChoice":
                header.append(id)
                header += (question["options"] as? [String] ?? []).map { "\(id)/\($0)" }
            case "table":
                for row in question["rows"] as? [String] ?? [] {
                    header += (question["columns"] as? [String] ?? []).map { "\(id)-\(row)-\($0)" }
                }
            default:
                header.append(id)
            }
            header.append("\(id)-comment")
        }
        return header + ["KEY", "User", "UserName", "FormVersion", "AttachmentsPresent", "AttachmentsExpected", "ForemanComments"]
    }

    /// The completed forms' form.json under CompletedMIs/`user`, by folder name.
    func completed(_ sandbox: Sandbox, user: String) throws -> [String: [String: Any]] {
        let folder = sandbox.documents.appendingPathComponent("CompletedMIs").appendingPathComponent(user)
        var forms: [String: [String: Any]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            forms[name] = try sandbox.formJSON(name, in: "CompletedMIs", user: user)
        }
        return forms
    }

    func makeStore() throws -> (sandbox: Sandbox, handID: String, ids: [String], media: [String: String]) {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "ana")
        try sandbox.importSamples(as: "fiona")
        let simulated = try sandbox.run(["simulate", "pump-inspection", "--count", "3", "--seed", "12", "--submit"], as: "ana")
        XCTAssertEqual(simulated.status, 0, simulated.output)

        _ = try sandbox.newForm("pump-inspection", as: "ana", name: "by-hand")
        let answers: [String: Any] = [
            "guard": true, "leaks": ["Mechanical seal", "Casing drain"], "noise": ["Normal"], "checks": ["Alignment"],
            "pressure": ["value": 4.5, "comment": Self.comment], "hours": 1200,
            "bearings": [["60", "2.1"], ["58", "1.9"], ["65", NSNull()]], "notes": Self.notes,
        ]
        let file = sandbox.root.appendingPathComponent("answers-by-hand.json")
        try JSONSerialization.data(withJSONObject: answers).write(to: file)
        XCTAssertEqual(try sandbox.run(["answer", "by-hand", "--file", file.path], as: "ana").status, 0)
        let samples = sandbox.repository.appendingPathComponent("Samples/media")
        let originals = [("pressure", "gauge.jpg"), ("leak_photo", "seal.png")]
        for (question, name) in originals {
            let attached = try sandbox.run(["attach", "by-hand", question, samples.appendingPathComponent(name).path], as: "ana")
            XCTAssertEqual(attached.status, 0, attached.output)
        }
        let submitted = try sandbox.run(["submit", "by-hand"], as: "ana")
        XCTAssertEqual(submitted.status, 0, submitted.output)

        let forms = try completed(sandbox, user: "ana")
        XCTAssertEqual(forms.count, 4, "\(forms.keys)")
        let hand = try XCTUnwrap(forms["by-hand"])
        let handID = try XCTUnwrap(hand["id"] as? String).lowercased()
        var media: [String: String] = [:]
        let handAnswers = try XCTUnwrap(hand["answers"] as? [String: Any])
        for (question, original) in originals {
            let names = (handAnswers[question] as? [String: Any])?["media"] as? [String] ?? []
            XCTAssertEqual(names.count, 1, "\(question): \(handAnswers[question] ?? "none")")
            for name in names { media["\(handID)/\(name)"] = samples.appendingPathComponent(original).path }
        }
        let ids = try forms.values.map { try XCTUnwrap($0["id"] as? String).lowercased() }
        return (sandbox, handID, ids, media)
    }

    func testZipReadByPythonAndLibreOffice() throws {
        let (sandbox, handID, ids, media) = try makeStore()
        let output = sandbox.root.appendingPathComponent("pumps.zip")
        let exported = try sandbox.run(["export", "pump-inspection", "--output", output.path, "--json"], as: "fiona")
        XCTAssertEqual(exported.status, 0, exported.output)
        // Piped: no progress line on stderr.
        XCTAssertFalse(exported.stderr.contains("exporting"), exported.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(summary["formCount"] as? Int, 4, exported.stdout)
        XCTAssertEqual(summary["mediaCount"] as? Int, 2, exported.stdout)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int)
        XCTAssertEqual(summary["bytes"] as? Int, size)
        XCTAssertEqual((summary["skipped"] as? [Any])?.count, 0)

        let header = try Self.header(of: sandbox.repository.appendingPathComponent("Samples/templates/pump-inspection.json"))
        let cells: [[String]] = [
            [handID, "notes", Self.notes], [handID, "pressure", "4.5"], [handID, "pressure-comment", Self.comment],
            [handID, "leaks", "Mechanical seal Casing drain"], [handID, "leaks/Casing drain", "1"], [handID, "leaks/None", "0"],
            [handID, "leak_photo", "Qid2(1).png"],
            [handID, "User", "ana"], [handID, "FormVersion", "4"],
            [handID, "AttachmentsPresent", "2"], [handID, "AttachmentsExpected", "2"],
        ]
        let expected: [String: Any] = ["template": "pump-inspection", "header": header, "forms": ids.sorted(), "last": handID, "media": media,
                                       "cells": cells, "libreoffice": "Ñuñoa"]
        let expectedFile = sandbox.root.appendingPathComponent("expected.json")
        try JSONSerialization.data(withJSONObject: expected).write(to: expectedFile)
        let script = try XCTUnwrap(Bundle.module.url(forResource: "mi_export_check", withExtension: "py"),
                                   "mi_export_check.py is not among the test resources")
        let work = sandbox.root.appendingPathComponent("check")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let checked = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, expectedFile.path, output.path, work.path])
        XCTAssertEqual(checked.status, 0, checked.output)
        XCTAssertEqual(checked.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "OK", checked.output)

        // A technician exports their own forms; the text summary names what was written.
        let own = sandbox.root.appendingPathComponent("own.zip")
        let text = try sandbox.run(["export", "pump-inspection", "-o", own.path, "--no-media"], as: "ana")
        XCTAssertEqual(text.status, 0, text.output)
        XCTAssertTrue(text.stdout.hasPrefix("Exported 4 forms and 0 media files ("), text.stdout)
        XCTAssertTrue(text.stdout.contains("to \(own.path)"), text.stdout)
        let listed = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).namelist())", own.path])
        XCTAssertEqual(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "['pump-inspection.csv']", listed.output)

        // Dates: none today in the future.
        let later = try sandbox.run(["export", "pump-inspection", "-o", own.path, "--from", "2999-01-01", "--json", "--force"], as: "fiona")
        XCTAssertEqual(later.status, 0, later.output)
        XCTAssertTrue(later.stdout.contains("\"formCount\" : 0"), later.stdout)
    }

    func testJSONLinesAndUnreadableForms() throws {
        let (sandbox, _, ids, _) = try makeStore()
        let output = sandbox.root.appendingPathComponent("pumps.jsonl")
        let exported = try sandbox.run(["export", "pump-inspection", "--output", output.path, "--format", "jsonl"], as: "fiona")
        XCTAssertEqual(exported.status, 0, exported.output)
        XCTAssertTrue(exported.stdout.hasPrefix("Exported 4 forms ("), exported.stdout)
        let lines = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "ends with a line break")
        var seen: [String] = []
        for line in lines.dropLast() {
            let form = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            seen.append(try XCTUnwrap(form["id"] as? String).lowercased())
            if (form["name"] as? String) == "by-hand" {
                let notes = (form["answers"] as? [String: Any])?["notes"]
                XCTAssertEqual(((notes as? [String: Any])?["value"] as? String) ?? (notes as? String), Self.notes)
            }
        }
        XCTAssertEqual(seen.sorted(), ids.sorted())

        // A form.json that cannot be read is skipped and named; the others are exported.
        let broken = sandbox.formFolder("by-hand", in: "CompletedMIs", user: "ana").appendingPathComponent("form.json")
        try Data("{ not json".utf8).write(to: broken)
        let skipping = try sandbox.run(["export", "pump-inspection", "-o", output.path, "--format", "jsonl", "--force"], as: "fiona")
        XCTAssertEqual(skipping.status, 0, skipping.output)
        XCTAssertTrue(skipping.stdout.contains("Exported 3 forms"), skipping.stdout)
        XCTAssertTrue(skipping.stdout.contains("skipped 1 unreadable form: CompletedMIs/ana/by-hand"), skipping.stdout)
        XCTAssertEqual(String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n").count, 3)
    }

    func testErrorsLeaveNothingAtTheOutput() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "ana")
        XCTAssertEqual(try sandbox.run(["simulate", "pump-inspection", "--count", "2", "--seed", "3", "--submit"], as: "ana").status, 0)
        let folder = sandbox.root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("x.zip")
        func nothingLeft(_ what: String) throws {
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "taken.zip" }, [], what)
        }

        let other = try sandbox.run(["export", "pump-inspection", "-o", output.path, "--user", "bob"], as: "ana")
        XCTAssertEqual(other.status, 77, other.output)
        try nothingLeft("other technician")
        let unknown = try sandbox.run(["export", "no-such-template", "-o", output.path], as: "ana")
        XCTAssertEqual(unknown.status, 66, unknown.output)
        XCTAssertTrue(unknown.stderr.contains("no template \"no-such-template\""), unknown.stderr)
        try nothingLeft("unknown template")
        let badDay = try sandbox.run(["export", "pump-inspection", "-o", output.path, "--to", "2026-13-01"], as: "ana")
        XCTAssertEqual(badDay.status, 64, badDay.output)
        XCTAssertTrue(badDay.stderr.contains("--to is \"2026-13-01\""), badDay.stderr)
        let badFormat = try sandbox.run(["export", "pump-inspection", "-o", output.path, "--format", "xlsx", "--json"], as: "ana")
        XCTAssertEqual(badFormat.status, 64, badFormat.output)
        XCTAssertTrue(badFormat.stderr.contains("\"code\":\"export-format\""), badFormat.stderr)
        let missing = try sandbox.run(["export", "pump-inspection", "-o", folder.appendingPathComponent("no/such/x.zip").path], as: "ana")
        XCTAssertEqual(missing.status, 69, missing.output)
        try nothingLeft("missing folder")

        // The rename fails at the very end (a folder is in the way, --force asked to replace
        // it): the written temporary file is removed and the folder stays as it was.
        let taken = folder.appendingPathComponent("taken.zip")
        try FileManager.default.createDirectory(at: taken.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let kept = try sandbox.run(["export", "pump-inspection", "-o", taken.path], as: "ana")
        XCTAssertEqual(kept.status, 65, "without --force an existing name is refused first — \(kept.output)")
        let blocked = try sandbox.run(["export", "pump-inspection", "-o", taken.path, "--force"], as: "ana")
        XCTAssertEqual(blocked.status, 69, blocked.output)
        XCTAssertTrue(blocked.stderr.contains("no partial file was left"), blocked.stderr)
        try nothingLeft("rename refused")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: taken.path), ["inside"])
    }

    /// On a terminal, progress is drawn on stderr and cleared before the summary.
    func testProgressOnlyOnATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "ana")
        XCTAssertEqual(try sandbox.run(["simulate", "pump-inspection", "--count", "2", "--seed", "4", "--submit"], as: "ana").status, 0)
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = Sandbox.binary
        process.arguments = ["export", "pump-inspection", "-o", "tty.zip"]
        var environment = sandbox.environment(for: "ana")
        environment["TERM"] = "xterm"
        process.environment = environment
        process.currentDirectoryURL = sandbox.root
        try terminal.run(process)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains("\rexporting: 2/2 forms read"), terminal.output)
        XCTAssertTrue(terminal.output.contains("\r\u{1B}[KExported 2 forms and 0 media files"), terminal.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("tty.zip").path))
    }
}
