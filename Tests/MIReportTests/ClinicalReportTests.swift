import Foundation
import MIKit
@testable import MIReport
import TestSupport
import XCTest

/// The consent and the scores in the PDF: the text with who accepted it and its SHA-256, and the
/// scorer's values, per-item results and note.
final class ClinicalReportTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-report-clinical-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private func text(of form: Form) throws -> String {
        let output = folder.appendingPathComponent("report-\(UUID().uuidString).pdf")
        try FormReport(form: form, formFolder: folder, paper: .a4, timeZone: TimeZone(identifier: "UTC") ?? .current).write(to: output)
        return try Poppler.layoutText(output)
    }

    private func ipaqForm() throws -> Form {
        var form = Form(name: "ipaq-1", user: "ana", template: try TemplateFixture.sample("ipaq"),
                        createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        form = try XCTUnwrap(IPAQCases.all.first { $0.expected["ipaq.category"] == .text("high") }).applied(to: form)
        return form
    }

    func testScoresAndAnAcceptedConsentArePrinted() throws {
        var form = try ipaqForm()
        let digest = try XCTUnwrap(form.template.consentDigest)
        form.consent = ConsentAcceptance(by: "ana", at: Date(timeIntervalSince1970: 1_790_000_060), sha256: digest)
        let text = try text(of: form)
        XCTAssertTrue(text.contains("Consent"), text)
        XCTAssertTrue(text.contains("Consentimiento informado"), "the consent text itself")
        XCTAssertTrue(text.contains("by ana on 2026-"), text)
        XCTAssertTrue(text.contains(digest), "the SHA-256 of the accepted text")
        XCTAssertFalse(text.contains("not the digest"))
        XCTAssertTrue(text.contains("Scores (ipaq-short)"), text)
        let sheet = try XCTUnwrap(form.scores)
        for entry in sheet.values {
            XCTAssertTrue(text.contains("\(entry.key) \(entry.value.display)"), "\(entry.key) = \(entry.value.display) in: \(text)")
        }
        XCTAssertTrue(text.contains("ipaq.category high"))
    }

    func testAMissingOrForeignAcceptanceIsSaidPlainly() throws {
        var form = try ipaqForm()
        XCTAssertTrue(try text(of: form).contains("not accepted"))
        form.consent = ConsentAcceptance(by: "ana", at: Date(timeIntervalSince1970: 1_790_000_060), sha256: String(repeating: "0", count: 64))
        let foreign = try text(of: form)
        XCTAssertTrue(foreign.replacingOccurrences(of: " | ", with: " ").contains("— not the digest of this text"), foreign)
    }

    func testMMSEItemsAndTheNoteArePrinted() throws {
        var form = Form(name: "mmse-1", user: "ana", template: try TemplateFixture.sample("mmse"),
                        createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        form.timeZone = "UTC"
        form.answers["concentrationQuestionOne"] = Answer(value: .number(93))
        form.answers["concentrationQuestionTwo"] = Answer(value: .number(85))
        let text = try text(of: form)
        XCTAssertTrue(text.contains("Scores (mmse)"), text)
        XCTAssertTrue(text.contains("concentrationQuestionOne correct, 1/1"), text)
        XCTAssertTrue(text.contains("concentrationQuestionTwo incorrect, 0/1 (expected 86)"), text)
        XCTAssertTrue(text.contains("letterQuestion needs an examiner"), text)
        XCTAssertTrue(text.contains("Not a full 30-point MMSE"), text)
        XCTAssertFalse(ScoreSheet.keys(of: .mmse).isEmpty)
    }

    func testAnUnscoredFormWithoutConsentHasNeitherSection() throws {
        let form = Form(name: "pump-1", user: "ana", template: try TemplateFixture.sampleTemplate(),
                        createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        let text = try text(of: form)
        XCTAssertFalse(text.contains("Scores ("))
        XCTAssertFalse(text.contains("SHA-256"))
    }
}
