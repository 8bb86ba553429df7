import Foundation
@testable import MIKit
import TestSupport
import XCTest

final class CSVTextTests: XCTestCase {
    func testQuotingOfCommasQuotesNewlinesAndAccents() {
        let record = CSVText.record(["plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "Ñuñoa", ""])
        XCTAssertEqual(String(decoding: record, as: UTF8.self),
                       "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",Ñuñoa,\r\n")
    }

    func testFormulaStartsAreGuardedButNumbersAreNot() {
        XCTAssertEqual(CSVText.guarded("=1+1"), "'=1+1")
        XCTAssertEqual(CSVText.guarded("@SUM(A1)"), "'@SUM(A1)")
        XCTAssertEqual(CSVText.guarded("+cmd"), "'+cmd")
        XCTAssertEqual(CSVText.guarded("-2+3"), "'-2+3")
        XCTAssertEqual(CSVText.guarded("\tx"), "'\tx")
        XCTAssertEqual(CSVText.guarded("-3.5"), "-3.5")
        XCTAssertEqual(CSVText.guarded("+7"), "+7")
        XCTAssertEqual(CSVText.guarded("a=b"), "a=b")
        XCTAssertEqual(CSVText.guarded(""), "")
        XCTAssertEqual(String(decoding: CSVText.record(["=HYPERLINK(\"x\",\"y\")"]), as: UTF8.self),
                       "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"\r\n")
    }
}

final class CSVLayoutTests: XCTestCase {
    func testHeaderFollowsTheTemplateInTheIssuesOrder() throws {
        let layout = CSVLayout(template: try TemplateFixture.sampleTemplate())
        XCTAssertEqual(layout.header, [
            "SubmissionDate",
            "guard", "guard-comment",
            "leaks", "leaks/None", "leaks/Mechanical seal", "leaks/Suction flange", "leaks/Discharge flange", "leaks/Casing drain",
            "leaks-comment",
            "leak_photo", "leak_photo-comment",
            "noise", "noise/Normal", "noise/Humming", "noise/Grinding", "noise/Cavitation (gravel noise)", "noise-comment",
            "checks", "checks/Alignment", "checks/Lubrication", "checks/Vibration", "checks/Seal flush", "checks/Motor current",
            "checks-comment",
            "pressure", "pressure-comment",
            "hours", "hours-comment",
            "bearings-Drive end-Temperature", "bearings-Drive end-Vibration",
            "bearings-Non-drive end-Temperature", "bearings-Non-drive end-Vibration",
            "bearings-Motor-Temperature", "bearings-Motor-Vibration", "bearings-comment",
            "notes", "notes-comment",
            "KEY", "User", "UserName", "FormVersion", "AttachmentsPresent", "AttachmentsExpected", "ForemanComments",
        ])
    }

    func testAScoredTemplateHasAColumnPerScoreKeyBeforeKEYRecomputedFromTheAnswers() throws {
        let template = try TemplateFixture.sample("ipaq")
        let layout = CSVLayout(template: template)
        let keys = ScoreSheet.keys(of: .ipaqShort)
        XCTAssertEqual(keys.first, "ipaq.walkingMET")
        let key = try XCTUnwrap(layout.header.firstIndex(of: "KEY"))
        XCTAssertEqual(Array(layout.header[(key - keys.count)..<key]), keys)
        XCTAssertEqual(layout.header[key - keys.count - 1], "seventhQuestionSedentary-comment")

        var form = Form(id: FormID(), name: "ipaq-1", user: "ana", template: template, createdAt: TestClock.start)
        form.status = .completed
        form = try XCTUnwrap(IPAQCases.all.first).applied(to: form)
        let sheet = try XCTUnwrap(form.scores)
        let cells = Dictionary(uniqueKeysWithValues: zip(layout.header, layout.row(for: form, attachmentsPresent: 0)))
        for name in keys { XCTAssertEqual(cells[name], sheet[name]?.display ?? "", name) }
        // An unscored template has no score columns.
        XCTAssertFalse(CSVLayout(template: try TemplateFixture.sampleTemplate()).header.contains { $0.hasPrefix("ipaq.") })
    }

    static func answeredForm() throws -> Form {
        let template = try TemplateFixture.sampleTemplate()
        var form = Form(id: FormID("6F1C2D3E-0000-4000-8000-00000000000A")!, name: "pump-1", user: "ana",
                        template: template, createdAt: TestClock.start)
        form.userDisplayName = "Ana Núñez"
        form.status = .completed
        form.submittedAt = TestClock.start.addingTimeInterval(3_600.75)
        form.answers = [
            "guard": Answer(value: .bool(false)),
            "leaks": Answer(value: .choices(["Mechanical seal", "Casing drain"]), comment: "drip, \"slow\""),
            "noise": Answer(value: nil, comment: "could not run it"),
            "pressure": Answer(value: .number(4)),
            "hours": Answer(value: .number(1250)),
            "bearings": Answer(value: .cells([["61", "2.5"], ["58", "1.9"], ["70", nil]]), media: ["Qid6(1).jpg"]),
            "notes": Answer(value: .text("Ñuñoa plant, line 2"), media: ["Qid7(1).mp4", "Qid7(2).m4a"]),
        ]
        form.foremanComments = [
            ForemanComment(at: TestClock.start.addingTimeInterval(7_200), by: "boss", text: "Replace the seal."),
            ForemanComment(at: TestClock.start.addingTimeInterval(7_260), by: "boss", text: "And the drain."),
        ]
        return form
    }

    func testRowOfAnAnsweredForm() throws {
        let form = try Self.answeredForm()
        let layout = CSVLayout(template: form.template)
        let row = layout.row(for: form, attachmentsPresent: 2)
        XCTAssertEqual(row.count, layout.header.count)
        let cells = Dictionary(uniqueKeysWithValues: zip(layout.header, row))
        XCTAssertEqual(cells["SubmissionDate"], "2026-03-02T10:00:00Z")
        XCTAssertEqual(cells["guard"], "false")
        XCTAssertEqual(cells["leaks"], "Mechanical seal Casing drain")
        XCTAssertEqual(cells["leaks/None"], "0")
        XCTAssertEqual(cells["leaks/Mechanical seal"], "1")
        XCTAssertEqual(cells["leaks/Casing drain"], "1")
        XCTAssertEqual(cells["leaks-comment"], "drip, \"slow\"")
        XCTAssertEqual(cells["noise"], "")
        XCTAssertEqual(cells["noise/Normal"], "", "no value: the 0/1 columns stay empty")
        XCTAssertEqual(cells["noise-comment"], "could not run it")
        XCTAssertEqual(cells["pressure"], "4", "no trailing .0")
        XCTAssertEqual(cells["hours"], "1250")
        XCTAssertEqual(cells["bearings-Non-drive end-Vibration"], "1.9")
        XCTAssertEqual(cells["bearings-Motor-Temperature"], "70")
        XCTAssertEqual(cells["bearings-Motor-Vibration"], "", "the cell that takes no value")
        XCTAssertEqual(cells["notes"], "Ñuñoa plant, line 2")
        XCTAssertEqual(cells["KEY"], "6f1c2d3e-0000-4000-8000-00000000000a")
        XCTAssertEqual(cells["User"], "ana")
        XCTAssertEqual(cells["UserName"], "Ana Núñez")
        XCTAssertEqual(cells["FormVersion"], "4")
        XCTAssertEqual(cells["AttachmentsPresent"], "2")
        XCTAssertEqual(cells["AttachmentsExpected"], "3")
        XCTAssertEqual(cells["ForemanComments"], "2026-03-02T11:00:00Z boss: Replace the seal.\n2026-03-02T11:01:00Z boss: And the drain.")
    }

    func testAnOlderFormIsMatchedByIdAndKeepsADroppedOptionAndItsCellsByLabel() throws {
        var form = try Self.answeredForm()
        // The form was made from version 2, which had another option and the table's rows in
        // another order; the newest version (the layout) dropped "Casing drain".
        form.template.version = 2
        if let index = form.template.index(of: "bearings") {
            form.template.questions[index].kind = .table(rows: ["Motor", "Drive end", "Non-drive end"],
                                                         columns: ["Temperature", "Vibration"], noCells: [])
        }
        form.answers["bearings"] = Answer(value: .cells([["70", "9.9"], ["61", "2.5"], ["58", "1.9"]]))
        var newest = try TemplateFixture.sampleTemplate()
        newest.version = 4
        newest.questions[1].kind = .multipleChoice(options: ["None", "Mechanical seal", "Suction flange"], maxAnswers: 0)
        newest.questions.removeAll { $0.id == "pressure" }
        let layout = CSVLayout(template: newest)
        let cells = Dictionary(uniqueKeysWithValues: zip(layout.header, layout.row(for: form, attachmentsPresent: 0)))
        XCTAssertNil(cells["pressure"])
        XCTAssertEqual(cells["leaks"], "Mechanical seal Casing drain", "the dropped option stays in the text")
        XCTAssertNil(cells["leaks/Casing drain"])
        XCTAssertEqual(cells["leaks/Mechanical seal"], "1")
        XCTAssertEqual(cells["bearings-Drive end-Temperature"], "61")
        XCTAssertEqual(cells["bearings-Motor-Temperature"], "70")
        XCTAssertEqual(cells["bearings-Motor-Vibration"], "9.9", "a value in a cell the newest version takes none is kept")
        XCTAssertEqual(cells["FormVersion"], "2")
    }

    func testAValueOfAnotherTypeIsWrittenAsText() throws {
        var form = try Self.answeredForm()
        form.answers["leaks"] = Answer(value: .text("all over"))
        form.answers["pressure"] = Answer(value: .number(2.25))
        let layout = CSVLayout(template: form.template)
        let cells = Dictionary(uniqueKeysWithValues: zip(layout.header, layout.row(for: form, attachmentsPresent: 0)))
        XCTAssertEqual(cells["leaks"], "all over")
        XCTAssertEqual(cells["leaks/None"], "")
        XCTAssertEqual(cells["pressure"], "2.25")
    }
}

/// A source of forms held in memory, with media files in a temporary folder.
private struct MemorySource: ExportSource {
    var items: [Result<ExportedForm, StoreError>]
    var count: Int { items.count }
    func load(_ index: Int) throws -> ExportedForm { try items[index].get() }
}

final class ExportWriterTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory(prefix: "export-test") }
    override func tearDown() { folder = nil }

    private func item(_ form: Form, media: [String: [UInt8]]) throws -> ExportedForm {
        var paths: [String: String] = [:]
        for (name, bytes) in media {
            let url = folder.path(form.id.description, name)
            try Files.write(Data(bytes), to: url)
            paths[name] = url.path
        }
        return ExportedForm(json: try FormFile.encode(form), form: form, mediaPaths: paths)
    }

    private struct Collector: ExportSink {
        var bytes: [UInt8] = []
        var largestChunk = 0
        mutating func write(_ chunk: [UInt8]) throws {
            bytes += chunk
            largestChunk = max(largestChunk, chunk.count)
        }
    }

    func testZipHoldsTheCSVThenEachFormsMediaByteForByte() throws {
        let first = try CSVLayoutTests.answeredForm()
        var second = first
        second.id = FormID()
        second.user = "ben"
        second.submittedAt = first.submittedAt?.addingTimeInterval(86_400)
        second.answers["notes"] = Answer(value: .text("=cmd|' /C calc'!A0"))
        let video = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let source = MemorySource(items: [
            .success(try item(first, media: ["Qid6(1).jpg": Array("jpeg".utf8), "Qid7(1).mp4": video])),
            .failure(.unreadableForm(path: "/x/form.json", reason: "broken")),
            .success(try item(second, media: [:])),
        ])
        let writer = try ExportWriter(template: first.template, source: source, format: .zip, now: TestClock.start)
        var sink = Collector()
        try writer.write(to: &sink)
        let reader = try ZipArchiveReader(sink.bytes)
        let firstID = first.id.description
        XCTAssertEqual(reader.entries.map(\.name), ["pump-inspection.csv", "media/\(firstID)/Qid6(1).jpg", "media/\(firstID)/Qid7(1).mp4"])
        XCTAssertEqual(reader.entry("media/\(firstID)/Qid7(1).mp4")?.data, video)
        let csv = try XCTUnwrap(reader.entry("pump-inspection.csv")?.data)
        XCTAssertEqual(Array(csv.prefix(3)), CSVText.byteOrderMark)
        let text = String(decoding: csv.dropFirst(3), as: UTF8.self)
        let records = text.components(separatedBy: "\r\n")
        XCTAssertEqual(records.count, 4, "header, two rows and the empty rest after the last CRLF")
        XCTAssertTrue(records[1].contains(",4,2,3,"), "version 4, two of three attachments present: \(records[1])")
        XCTAssertTrue(records[2].contains(",4,0,1,"), "version 4, none present, one listed: \(records[2])")
        XCTAssertTrue(records[2].contains("'=cmd|' /C calc'!A0"))
        XCTAssertEqual(writer.skipped.count, 1)
        XCTAssertEqual(writer.progress.formsExported, 2)
        XCTAssertEqual(writer.progress.mediaFiles, 2)
        XCTAssertLessThanOrEqual(sink.largestChunk, ExportWriter.chunkBytes + ExportWriter.readBytes + 4096)
    }

    func testFiltersAndNoMediaAndOtherTemplates() throws {
        let first = try CSVLayoutTests.answeredForm()
        var late = first
        late.id = FormID()
        late.submittedAt = first.submittedAt?.addingTimeInterval(3 * 86_400)
        var other = first
        other.id = FormID()
        other.template.id = "other"
        var bens = first
        bens.id = FormID()
        bens.user = "ben"
        let source = MemorySource(items: try [first, late, other, bens].map { .success(try item($0, media: ["Qid6(1).jpg": [1, 2]])) })
        let filters = StatisticsFilters(to: first.submittedAt?.addingTimeInterval(86_400), user: "ana")
        let writer = try ExportWriter(template: first.template, source: source, format: .zip, filters: filters,
                                      includeMedia: false, now: TestClock.start)
        var sink = Collector()
        try writer.write(to: &sink)
        let reader = try ZipArchiveReader(sink.bytes)
        XCTAssertEqual(reader.entries.map(\.name), ["pump-inspection.csv"])
        let text = String(decoding: reader.entries[0].data, as: UTF8.self)
        XCTAssertTrue(text.contains(first.id.description))
        for excluded in [late, other, bens] { XCTAssertFalse(text.contains(excluded.id.description)) }
        XCTAssertEqual(writer.progress.formsExported, 1)
    }

    func testJSONLinesHoldEachFormJSONOnOneLine() throws {
        let form = try CSVLayoutTests.answeredForm()
        let pretty = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: try FormFile.encode(form)),
                                                options: [.prettyPrinted])
        XCTAssertTrue(pretty.contains(0x0A))
        var second = ExportedForm(json: pretty + Data("\r\n\n".utf8), form: form, mediaPaths: [:])
        second.form.id = FormID()
        let source = MemorySource(items: [.success(try item(form, media: [:])), .success(second)])
        let writer = try ExportWriter(template: form.template, source: source, format: .jsonl, now: TestClock.start)
        var sink = Collector()
        try writer.write(to: &sink)
        let lines = String(decoding: sink.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[2], "")
        for line in lines.prefix(2) {
            let decoded = try FormFile.decode(Data(line.utf8))
            XCTAssertEqual(decoded.answers, form.answers)
        }
    }

    func testFormatNames() throws {
        XCTAssertEqual(try ExportFormat(parsing: "JSONL"), .jsonl)
        XCTAssertThrowsError(try ExportFormat(parsing: "xlsx")) { error in
            XCTAssertEqual((error as? ExportError)?.code, "export-format")
            XCTAssertEqual((error as? ExportError)?.failureClass, .usage)
        }
    }

    func testFileSinkLeavesNothingUntilCommittedAndNothingWhenDiscarded() throws {
        let destination = folder.path("out.zip")
        var sink = try FileExportSink(destination: destination)
        try sink.write(Array("half".utf8))
        XCTAssertFalse(Files.exists(destination))
        sink.discard()
        XCTAssertEqual(Files.names(in: folder.url), [])
        var whole = try FileExportSink(destination: destination)
        try whole.write(Array("whole".utf8))
        try whole.commit()
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "whole")
        XCTAssertEqual(Files.names(in: folder.url), ["out.zip"])
    }

    func testATechnicianCannotExportAnothersForms() throws {
        let fixture = try StoreFixture()
        let workflow = Workflow(configuration: fixture.configuration, actor: Actor(name: "ana", role: .technician))
        XCTAssertThrowsError(try workflow.completedForms(of: TemplateFixture.sampleID, filters: StatisticsFilters(user: "ben"))) { error in
            XCTAssertEqual((error as? StatisticsError)?.failureClass, .notPermitted)
        }
        let own = try workflow.completedForms(of: TemplateFixture.sampleID, filters: StatisticsFilters())
        XCTAssertEqual(own.forms.count, 0)
        XCTAssertEqual(own.template.version, 4)
        XCTAssertThrowsError(try workflow.completedForms(of: "no-such-template", filters: StatisticsFilters()))
    }
}
