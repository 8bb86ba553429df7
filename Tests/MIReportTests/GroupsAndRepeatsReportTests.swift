import Foundation
import MIKit
@testable import MIReport
import TestSupport
import XCTest

/// The PDF of a form with groups and repeats (`ReportComposer+Groups`): the group under its
/// label and marked "not relevant", the counted repeat of simple questions as one table (a row
/// per instance), the open repeat as a section per instance with its photo and its nested
/// repeat — in the order the form is asked.
final class GroupsAndRepeatsReportTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FormReportTests.jpeg.write(to: folder.appendingPathComponent(StationFixture.tankPhoto))
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func pdfText(_ form: Form) throws -> String {
        let output = folder.appendingPathComponent("station.pdf")
        try FormReport(form: form, formFolder: folder, paper: .a4, timeZone: TimeZone(identifier: "UTC") ?? .current).write(to: output)
        return try Poppler.layoutText(output)
    }

    /// `expected` occur in `text` in this order.
    private func assertInOrder(_ expected: [String], in text: String, file: StaticString = #filePath, line: UInt = #line) {
        var rest = text[...]
        for piece in expected {
            guard let range = rest.range(of: piece) else {
                XCTFail("\(piece) is missing after what came before it in:\n\(rest.prefix(1500))", file: file, line: line)
                return
            }
            rest = rest[range.upperBound...]
        }
    }

    func testGroupsTablesInstancesAndNotRelevantMarksInOrder() throws {
        let text = try pdfText(try StationFixture.form())
        assertInOrder([
            "1. Site name", "North plant", "Power supply", "not relevant", "3. Supply voltage (V)", "Answer: not relevant",
            "4. How many pumps?", "Pump (2)", "Current (A) Pump state Where is the wear?",
            "Pump 1 12 worn Seal face", "Comment: seen at start-up", "Pump 2 9.5 ok not relevant",
            "Tank (2)", "Tank 1 · tanks[1]", "8. Tank level (%)", "80", "9. Photo of the tank", StationFixture.tankPhoto,
            "Valve (2)", "Valve state", "Valve 1 closed", "Valve 2 half open",
            "Tank 2 · tanks[2]", "35", "Valve (0)", "none", "Foreman comments",
        ], in: text)
        // Counted per instance: 16 answers asked for, all but tank 2's photo done (what is not relevant is done).
        XCTAssertTrue(text.contains("15 of 16 questions answered"), text)
        let images = try Poppler.images(folder.appendingPathComponent("station.pdf"))
        XCTAssertEqual(images.count, 1, "the tank's photo is drawn as a thumbnail: \(images)")
    }

    /// A repeat whose instance carries media is no table: each instance gets its section.
    func testMediaOnASimpleQuestionMakesTheRepeatSections() throws {
        var form = try StationFixture.form()
        try FormReportTests.jpeg.write(to: folder.appendingPathComponent("Qid4_2(1).jpg"))
        form.answers["pumps[2]/amps"]?.media = ["Qid4_2(1).jpg"]
        let text = try pdfText(form)
        assertInOrder(["Pump (2)", "Pump 1 · pumps[1]", "5. Current (A)", "Answer: 12", "Pump 2 · pumps[2]", "Answer: 9.5",
                       "Qid4_2(1).jpg", "7. Where is the wear?", "Answer: not relevant", "Tank (2)"], in: text)
        XCTAssertFalse(text.contains("Current (A) Pump state"), "no table header: \(text)")
    }
}
