import Foundation
import MIKit
import TestSupport
import XCTest

/// What the shipped sample templates' forms look like to a reader, byte for byte: `mi review
/// --json`, the CSV of `mi export` and the PDF's text (`pdftotext -layout`) of fixed filled
/// forms, compared with the files under Resources/Golden. The forms are built here with fixed
/// ids, dates, time zone and seeded simulated answers (plus one hand-answered pump inspection
/// with a comment beside a value, several choices and an empty table cell), so nothing needs
/// masking. A change to how a question type reads, exports or prints shows up here.
///
/// To regenerate the files after a deliberate change: `MI_GOLDEN_WRITE=1 swift test --skip-build
/// --filter MIEndToEndTests.GoldenOutputTests`, then review the diff before committing it.
final class GoldenOutputTests: XCTestCase {
    static let samples = ["pump-inspection", "extinguisher-check", "inspeccion-bomba", "ipaq", "mmse", "medical-history"]
    /// 2026-03-02T09:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_772_442_000)

    /// Resources/Golden in the source tree (written when regenerating) and in the test bundle.
    static let sourceFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources/Golden")

    func golden(_ name: String) throws -> Data {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Golden", withExtension: nil), "Resources/Golden is not among the test resources")
        return try Data(contentsOf: url.appendingPathComponent(name))
    }

    func compare(_ actual: Data, with name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        if ProcessInfo.processInfo.environment["MI_GOLDEN_WRITE"] == "1" {
            try FileManager.default.createDirectory(at: Self.sourceFolder, withIntermediateDirectories: true)
            try actual.write(to: Self.sourceFolder.appendingPathComponent(name))
            return
        }
        let expected = try golden(name)
        if actual != expected {
            let text = String(decoding: actual, as: UTF8.self), wanted = String(decoding: expected, as: UTF8.self)
            // By line, CRLF or LF (a CSV's "\r\n" is one Character).
            let actualLines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            let wantedLines = wanted.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            let first = zip(actualLines, wantedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(actualLines.count, wantedLines.count)
            XCTFail("""
                \(name) differs from Resources/Golden/\(name) at line \(first + 1):
                  expected: \(first < wantedLines.count ? wantedLines[first] : "<end>")
                  actual:   \(first < actualLines.count ? actualLines[first] : "<end>")
                """, file: file, line: line)
        }
    }

    /// The sample's template as `mi templates import` reads it (default keys).
    func template(_ sandbox: Sandbox, _ id: String) throws -> Template {
        let url = sandbox.repository.appendingPathComponent("Samples/templates/\(id).json")
        return try TemplateCoding().decode(Data(contentsOf: url), source: url.lastPathComponent)
    }

    /// A completed form of `template` with fixed id and dates, written under CompletedMIs/ana.
    func store(_ form: Form, in sandbox: Sandbox, submittedAfter seconds: TimeInterval) throws {
        var form = form
        let submitted = Self.start.addingTimeInterval(seconds)
        form.status = .completed
        form.submittedAt = submitted
        form.record(AuditEvent(at: submitted, by: "ana", action: .submitted))
        let location = try Store(root: sandbox.documents).location(.completed, user: "ana", name: form.name)
        try FileManager.default.createDirectory(at: location.folder, withIntermediateDirectories: true)
        try Store(root: sandbox.documents).save(form, at: location)
    }

    func makeForms(_ sandbox: Sandbox) throws -> [String: [String]] {
        var formsByTemplate: [String: [String]] = [:]
        for (index, id) in Self.samples.enumerated() {
            let uuid = try XCTUnwrap(FormID(String(format: "00000000-0000-4000-8000-%012d", index + 1)))
            var form = Form(id: uuid, name: "golden-\(id)", user: "ana", template: try template(sandbox, id),
                            createdAt: Self.start.addingTimeInterval(Double(index) * 60))
            form.userDisplayName = "Ana Pérez"
            form.timeZone = "America/Mexico_City"
            form.record(AuditEvent(at: form.createdAt, by: "ana", action: .created))
            var simulator = Simulator(seed: UInt64(100 + index))
            try simulator.fill(&form, by: "ana", at: form.createdAt.addingTimeInterval(30))
            try store(form, in: sandbox, submittedAfter: Double(index) * 60 + 3600)
            formsByTemplate[id, default: []].append(form.name)
        }

        // By hand: a comment beside a value, a comment alone (also on the leak photo, asked
        // because there are leaks), several choices, an empty cell.
        var form = Form(id: try XCTUnwrap(FormID( "00000000-0000-4000-8000-0000000000aa")), name: "golden-by-hand",
                        user: "ana", template: try template(sandbox, "pump-inspection"), createdAt: Self.start)
        form.userDisplayName = "Ana Pérez"
        form.timeZone = "UTC"
        form.record(AuditEvent(at: form.createdAt, by: "ana", action: .created))
        let answers = #"""
            {"guard": {"value": true}, "leaks": {"value": ["Mechanical seal", "Casing drain"]},
             "leak_photo": {"comment": "Camera battery flat"},
             "noise": {"value": ["Normal"], "comment": "Quieter than last month"}, "checks": {"comment": "Not accessible today"},
             "pressure": {"value": 4.5, "comment": "line one\nline two"}, "hours": {"value": 1200},
             "bearings": {"value": [["60", "2.1"], ["58", "1.9"], ["65", null]]}, "notes": {"value": "Ñuñoa, \"quoted\""}}
            """#
        form.answers = try JSONDecoder().decode([String: Answer].self, from: Data(answers.utf8))
        form.record(AuditEvent(at: Self.start.addingTimeInterval(20), by: "ana", action: .answered,
                               questions: form.template.questions.map(\.id)))
        try store(form, in: sandbox, submittedAfter: 7200)
        formsByTemplate["pump-inspection", default: []].append(form.name)
        return formsByTemplate
    }

    func testSampleFormsReviewExportAndPrintAsBefore() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "ana")
        let forms = try makeForms(sandbox)
        let environment = ["TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        let pdfToText = try XCTUnwrap(["/usr/bin/pdftotext", "/usr/local/bin/pdftotext"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                      "pdftotext is not installed — apt-get install poppler-utils")

        for id in Self.samples {
            for name in try XCTUnwrap(forms[id]) {
                // The stored form itself: form.json is written as before.
                let location = try Store(root: sandbox.documents).location(.completed, user: "ana", name: name)
                try compare(try Data(contentsOf: location.formFile), with: "\(name).form.json")

                let review = try sandbox.run(["review", name, "--json"], as: "ana", environment: environment)
                XCTAssertEqual(review.status, 0, review.output)
                try compare(Data(review.stdout.utf8), with: "\(name).review.json")

                let plain = try sandbox.run(["review", name], as: "ana", environment: environment)
                XCTAssertEqual(plain.status, 0, plain.output)
                try compare(Data(plain.stdout.utf8), with: "\(name).review.txt")

                let pdf = sandbox.root.appendingPathComponent("\(name).pdf")
                let printed = try sandbox.run(["print", name, "--output", pdf.path, "--paper", "a4"], as: "ana", environment: environment)
                XCTAssertEqual(printed.status, 0, printed.output)
                let text = try ToolRun.output(URL(fileURLWithPath: pdfToText), ["-layout", "-enc", "UTF-8", pdf.path, "-"])
                try compare(Data(text.utf8), with: "\(name).pdf.txt")
            }

            let zip = sandbox.root.appendingPathComponent("\(id).zip")
            let exported = try sandbox.run(["export", id, "--output", zip.path, "--no-media"], as: "fiona", environment: environment)
            XCTAssertEqual(exported.status, 0, exported.output)
            let reader = try ZipArchiveReader(Array(try Data(contentsOf: zip)))
            let csv = try XCTUnwrap(reader.entry("\(id).csv"), "\(reader.entries.map(\.name))")
            try compare(Data(csv.data), with: "\(id).csv")
        }
    }
}
