import Foundation
import MIKit
@testable import MIReport
import XCTest

final class FormReportTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    // MARK: - Fixtures

    /// A 16 × 12 baseline JPEG (made once with pdftoppm).
    static let jpeg = Data(base64Encoded: """
    /9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCAAMABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDjJZKpyyVLKxqnKTX0WUYKOh9VmmMlqf/Z
    """, options: .ignoreUnknownCharacters) ?? Data()

    /// A 10 × 8 RGB PNG.
    static let png = Data(base64Encoded: """
    iVBORw0KGgoAAAANSUhEUgAAAAoAAAAICAIAAABPmPnhAAAAmklEQVR4nA3JMREAIQwAwdigiQjqOMBBakSkYeZUxAYNIqjjACf/266I0IQuDGEKS0hhC1d4gojSlK4MZSpLSWUrV3n6t9GMbgxjGstIYxvXePa305zuDGc6y0lnO9d5/nfQgh6MYAYryGAHN3jxd9KSnoxkJivJZCc3efn3oR36YRzmYR3ysA/38M7fRSt6MYpZrCKLXdziFR+Tv2v5TJ5l0gAAAABJRU5ErkJggg==
    """, options: .ignoreUnknownCharacters) ?? Data()

    static let created = Date(timeIntervalSince1970: 1_795_000_000)

    static let template = Template(id: "pump", title: "Pump inspection", version: 3, questions: [
        Question(id: "faults", text: "Which faults do you see?",
                 kind: .multipleChoice(options: ["Leak", "Noise", "Vibration"], maxAnswers: 0)),
        Question(id: "running", text: "Is the pump running?", kind: .trueFalse),
        Question(id: "site", text: "Where is the pump?", kind: .shortAnswer),
        Question(id: "pressure", text: "Outlet pressure in bar", kind: .numeric(integer: false, min: 0, max: 16)),
        Question(id: "readings", text: "Readings per side", kind: .table(
            rows: ["Inlet side", "Outlet side"], columns: ["Pressure", "Temperature"],
            noCells: [Cell(row: 1, column: 0)])),
        Question(id: "day", text: "¿Qué día se realizó la inspección?", kind: .shortAnswer),
    ])

    static func fullForm() -> Form {
        var form = Form(id: FormID("6F1C2A9E-4B1D-4C55-9C39-0E6C7A3B2D11") ?? FormID(),
                        name: "pump-2026-11-20", user: "anna", template: template, createdAt: created)
        form.userDisplayName = "Anna Ávila"
        form.answers = [
            "faults": Answer(value: .choices(["Leak", "Vibration"]), comment: "Seal worn on the drive side",
                             media: ["Qid0(1).jpg", "Qid0(2).png"]),
            "running": Answer(value: .bool(true)),
            "site": Answer(value: .text("Ñuñoa, Santiago")),
            "pressure": Answer(value: .number(4.5), comment: "Gauge reads slightly high"),
            "readings": Answer(value: .cells([["3.2 bar", "21 °C"], [nil, "24 °C"]])),
            "day": Answer(value: .text("el martes"), media: ["Qid5(1).mp4", "Qid5(2).m4a"]),
        ]
        form.status = .completed
        form.submittedAt = created.addingTimeInterval(3_600)
        form.foremanComments = [ForemanComment(at: created.addingTimeInterval(7_200), by: "boss",
                                               text: "Replace the seal before Friday.")]
        form.record(AuditEvent(at: created, by: "anna", action: .created, note: "template pump v3"))
        form.record(AuditEvent(at: created.addingTimeInterval(60), by: "anna", action: .answered, questions: ["faults", "running"]))
        form.record(AuditEvent(at: created.addingTimeInterval(120), by: "anna", action: .attached, media: "Qid0(1).jpg"))
        form.record(AuditEvent(at: created.addingTimeInterval(3_600), by: "anna", action: .submitted))
        return form
    }

    private func writeMedia() throws {
        try Self.jpeg.write(to: folder.appendingPathComponent("Qid0(1).jpg"))
        try Self.png.write(to: folder.appendingPathComponent("Qid0(2).png"))
        try Data(repeating: 7, count: 2_500_000).write(to: folder.appendingPathComponent("Qid5(1).mp4"))
        try Data(repeating: 3, count: 48_000).write(to: folder.appendingPathComponent("Qid5(2).m4a"))
    }

    private func report(_ form: Form, paper: Paper = .a4) -> FormReport {
        FormReport(form: form, formFolder: folder, paper: paper, timeZone: TimeZone(identifier: "UTC") ?? .current)
    }

    // MARK: - Tests

    func testFullFormHasEveryPartOfTheForm() throws {
        try writeMedia()
        let output = folder.appendingPathComponent("report.pdf")
        try report(Self.fullForm()).write(to: output)

        let info = try Poppler.run("pdfinfo", [output.path])
        XCTAssertTrue(info.contains("PDF version"), info)
        XCTAssertGreaterThanOrEqual(try Poppler.pages(output), 1)
        XCTAssertTrue(info.contains("A4"), info)

        let text = try Poppler.text(output)
        for expected in [
            "Pump inspection", "version 3", "pump-2026-11-20", "6f1c2a9e-4b1d-4c55-9c39-0e6c7a3b2d11", "anna",
            "2026-11-18", "completed",
            "Which faults do you see?", "Leak", "Vibration", "Noise", "Seal worn on the drive side",
            "Is the pump running?", "Yes",
            "Where is the pump?", "Ñuñoa, Santiago",
            "Outlet pressure in bar", "4.5", "Gauge reads slightly high",
            "Readings per side", "Inlet side", "Outlet side", "Pressure", "Temperature", "3.2 bar", "21 °C", "24 °C",
            "¿Qué día se realizó la inspección?", "el martes",
            "Qid0(1).jpg", "Qid0(2).png", "▶ Qid5(1).mp4", "2.4 MiB", "♪ Qid5(2).m4a", "46.9 KiB",
            "Anna Ávila (anna)",
            "Foreman comments", "Replace the seal before Friday.", "boss",
            "Audit trail", "submitted by anna", "answered faults, running by anna", "created from template pump v3 by anna",
            "Page 1 of",
        ] {
            XCTAssertTrue(text.contains(expected), "the PDF's text lacks \"\(expected)\":\n\(text)")
        }
        XCTAssertFalse(text.contains("missing:"), text)

        let images = try Poppler.images(output)
        XCTAssertEqual(images.count, 2, "one image per photo")
        let jpeg = images.first { $0.width == 16 && $0.height == 12 }
        XCTAssertEqual(jpeg?.encoding, "jpeg", "the JPEG is embedded as it is, not re-encoded")
        let png = images.first { $0.width == 10 && $0.height == 8 }
        XCTAssertNotNil(png, "the PNG is embedded")
    }

    func testControlCharactersInTheFormArePrintedEscaped() throws {
        var form = Self.fullForm()
        form.answers["site"] = Answer(value: .text("Hall\u{1B}[2J B"), comment: "line one\nbell\u{07}")
        form.userDisplayName = nil
        let output = folder.appendingPathComponent("escaped.pdf")
        try report(form).write(to: output)
        let text = try Poppler.text(output)
        XCTAssertTrue(text.contains("Hall\\e[2J B"), text)
        XCTAssertTrue(text.contains("bell\\u{7}"), text)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, text)
        XCTAssertFalse(text.contains("(anna)"), "without a display name the technician is the user name alone: \(text)")
    }

    func testEveryPageHasItsNumberAndTheFormID() throws {
        var form = Self.fullForm()
        form.template.questions = (1...60).map { Question(id: "q\($0)", text: "Question number \($0) of the long form", kind: .shortAnswer) }
        form.answers = [:]
        let output = folder.appendingPathComponent("long.pdf")
        try report(form).write(to: output)
        let pages = try Poppler.pages(output)
        XCTAssertGreaterThan(pages, 1)
        let text = try Poppler.text(output)
        for page in 1...pages { XCTAssertTrue(text.contains("Page \(page) of \(pages)"), "page \(page): \(text)") }
        XCTAssertFalse(text.contains("of ?"))
        let footers = text.components(separatedBy: "6f1c2a9e-4b1d-4c55-9c39-0e6c7a3b2d11").count - 1
        XCTAssertGreaterThanOrEqual(footers, pages, "the form id is in every footer")
    }

    func testLongFormHasMorePagesThanShortOne() throws {
        try writeMedia()
        let short = folder.appendingPathComponent("short.pdf")
        try report(Self.fullForm()).write(to: short)

        var long = Self.fullForm()
        long.template.questions = (1...60).map {
            Question(id: "q\($0)", text: "Question \($0): is the component in working order and free of corrosion?", kind: .shortAnswer)
        }
        long.answers = Dictionary(uniqueKeysWithValues: (1...60).map {
            ("q\($0)", Answer(value: .text(String(repeating: "Long answer text that wraps over several lines. ", count: 3)),
                              comment: "Comment \($0)"))
        })
        let longURL = folder.appendingPathComponent("long.pdf")
        try report(long).write(to: longURL)
        XCTAssertGreaterThan(try Poppler.pages(longURL), try Poppler.pages(short))
    }

    func testVeryLongTextWrapsAndContinuesOnTheNextPage() throws {
        var form = Self.fullForm()
        let words = (1...1_500).map { "word\($0)" }.joined(separator: " ")
        form.answers["site"] = Answer(value: .text(words))
        let output = folder.appendingPathComponent("wrap.pdf")
        try report(form).write(to: output)
        XCTAssertGreaterThan(try Poppler.pages(output), 1)
        let text = try Poppler.text(output)
        XCTAssertTrue(text.contains("word1 word2"))
        XCTAssertTrue(text.contains("word1500"), "the end of a text longer than a page is printed too")
    }

    func testTableLongerThanAPageRepeatsItsColumnLabels() throws {
        var form = Self.fullForm()
        let rows = (1...90).map { "Valve \($0)" }
        form.template.questions = [Question(id: "valves", text: "Valve check", kind: .table(
            rows: rows, columns: ["Opens", "Closes", "Seals"], noCells: [Cell(row: 89, column: 2)]))]
        form.answers = ["valves": Answer(value: .cells(rows.indices.map { row in ["ok \(row + 1)", "ok", row == 89 ? nil : "dry"] }))]
        let output = folder.appendingPathComponent("table.pdf")
        try report(form).write(to: output)
        let pages = try Poppler.pages(output)
        XCTAssertGreaterThan(pages, 1)
        let text = try Poppler.text(output)
        XCTAssertTrue(text.contains("Valve 1 "), text)
        XCTAssertTrue(text.contains("Valve 90"), text)
        XCTAssertTrue(text.contains("ok 90"), text)
        XCTAssertGreaterThanOrEqual(text.components(separatedBy: "Closes").count - 1, 2, "the column labels head every page of the table")
    }

    func testMissingAttachmentIsMarkedAndThePDFStillWritten() throws {
        try writeMedia()
        var form = Self.fullForm()
        form.answers["running"]?.media = ["Qid1(2).jpg"]
        let output = folder.appendingPathComponent("missing.pdf")
        try report(form).write(to: output)
        let text = try Poppler.text(output)
        XCTAssertTrue(text.contains("missing: Qid1(2).jpg"), text)
        XCTAssertEqual(try Poppler.images(output).count, 2)
    }

    func testPhotoThatIsNotAnImageIsListedWithTheReason() throws {
        try writeMedia()
        try Data("not a jpeg".utf8).write(to: folder.appendingPathComponent("Qid1(1).jpg"))
        var form = Self.fullForm()
        form.answers["running"]?.media = ["Qid1(1).jpg"]
        let output = folder.appendingPathComponent("broken.pdf")
        try report(form).write(to: output)
        let text = try Poppler.text(output)
        XCTAssertTrue(text.contains("Qid1(1).jpg (10 B) — is not a JPEG image"), text)
    }

    func testUnansweredFormPrints() throws {
        var form = Self.fullForm()
        form.answers = [:]
        form.foremanComments = []
        form.audit = []
        form.submittedAt = nil
        let output = folder.appendingPathComponent("empty.pdf")
        try report(form).write(to: output)
        let text = try Poppler.text(output)
        XCTAssertTrue(text.contains("no answer"))
        XCTAssertTrue(text.contains("not submitted"))
        XCTAssertTrue(text.contains("Inlet side"), "an unanswered table still shows its grid")
    }

    func testLetterPaper() throws {
        let output = folder.appendingPathComponent("letter.pdf")
        try report(Self.fullForm(), paper: .letter).write(to: output)
        let info = try Poppler.run("pdfinfo", [output.path])
        XCTAssertTrue(info.contains("612 x 792 pts (letter)"), info)
    }

    func testWritingIntoAFileThrowsAClearError() throws {
        let blocker = folder.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: blocker)
        let output = blocker.appendingPathComponent("report.pdf")
        XCTAssertThrowsError(try report(Self.fullForm()).write(to: output)) { error in
            guard case ReportError.cannotWrite(let path, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, output.path)
            let message = error.localizedDescription
            XCTAssertTrue(message.contains("could not write the PDF to \(output.path)"), message)
            XCTAssertTrue(message.contains("is not a folder"), message)
        }
    }

    func testWritingIntoAMissingFolderThrowsAClearError() throws {
        let output = folder.appendingPathComponent("no/such/folder/report.pdf")
        XCTAssertThrowsError(try report(Self.fullForm()).write(to: output)) { error in
            XCTAssertTrue(error.localizedDescription.contains("does not exist"), error.localizedDescription)
        }
    }

    func testWritingIntoAFolderNobodyMayWriteThrowsAClearError() throws {
        // sysfs refuses new files even to root, so this holds for every user.
        let output = URL(fileURLWithPath: "/sys/mi-report-test.pdf")
        XCTAssertThrowsError(try report(Self.fullForm()).write(to: output)) { error in
            guard case ReportError.cannotWrite = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.localizedDescription.contains("ermission denied"), error.localizedDescription)
        }
    }

    func testPaperFromLocale() {
        XCTAssertEqual(Paper.fromLocale(["LANG": "en_US.UTF-8"]), .letter)
        XCTAssertEqual(Paper.fromLocale(["LANG": "fr_CA.UTF-8"]), .letter)
        XCTAssertEqual(Paper.fromLocale(["LANG": "es_MX"]), .letter)
        XCTAssertEqual(Paper.fromLocale(["LANG": "fil_PH.UTF-8"]), .letter)
        XCTAssertEqual(Paper.fromLocale(["LANG": "es_CL.UTF-8"]), .a4)
        XCTAssertEqual(Paper.fromLocale(["LANG": "de_DE.UTF-8@euro"]), .a4)
        XCTAssertEqual(Paper.fromLocale(["LANG": "C"]), .a4)
        XCTAssertEqual(Paper.fromLocale([:]), .a4)
        XCTAssertEqual(Paper.fromLocale(["LANG": "en_US.UTF-8", "LC_PAPER": "en_GB.UTF-8"]), .a4, "LC_PAPER overrides LANG")
        XCTAssertEqual(Paper.fromLocale(["LC_PAPER": "en_GB.UTF-8", "LC_ALL": "en_US.UTF-8"]), .letter, "LC_ALL overrides all")
        XCTAssertEqual(Paper.fromLocale(["LC_ALL": "", "LANG": "en_US"]), .letter, "an empty variable is unset")
    }

    func testJPEGSizeFromStartOfFrame() {
        XCTAssertEqual(JPEGHeader.size(of: Self.jpeg)?.width, 16)
        XCTAssertEqual(JPEGHeader.size(of: Self.jpeg)?.height, 12)
        XCTAssertNil(JPEGHeader.size(of: Self.png))
        XCTAssertNil(JPEGHeader.size(of: Data([0xFF, 0xD8, 0xFF])))
        XCTAssertNil(JPEGHeader.size(of: Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11])), "a truncated frame header")
    }
}
