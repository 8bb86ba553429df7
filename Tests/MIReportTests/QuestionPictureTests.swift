import Foundation
import MIKit
@testable import MIReport
import TestSupport
import XCTest

/// A question's picture (`Question.image`) drawn under its text from the pictures folder.
final class QuestionPictureTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-report-pictures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("form"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("pictures"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    static let template = Template(id: "pictured", title: "Pictures", version: 1, questions: [
        Question(id: "watch", text: "¿Cuál es el nombre del objeto de la imagen?", image: "reloj.png", kind: .shortAnswer),
        Question(id: "pen", text: "¿Y de este?", image: "boligrafo.png", kind: .shortAnswer),
    ])

    func render(pictures: URL?) throws -> URL {
        let form = Form(name: "pictures-1", user: "ana", template: Self.template, createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        let output = folder.appendingPathComponent("report-\(UUID().uuidString).pdf")
        try FormReport(form: form, formFolder: folder.appendingPathComponent("form"), paper: .a4,
                       timeZone: TimeZone(identifier: "UTC") ?? .current, picturesFolder: pictures).write(to: output)
        return output
    }

    func testEachPictureIsDrawnAtItsPixelSize() throws {
        for name in ["reloj.png", "boligrafo.png"] {
            try FileManager.default.copyItem(at: TemplateFixture.samplesFolder.appendingPathComponent("mmse/\(name)"),
                                             to: folder.appendingPathComponent("pictures/\(name)"))
        }
        let output = try render(pictures: folder.appendingPathComponent("pictures"))
        let images = try Poppler.images(output)
        XCTAssertEqual(images.count, 2, "one image per question picture")
        XCTAssertTrue(images.allSatisfy { $0.width == 160 && $0.height == 160 }, "\(images)")
        XCTAssertFalse(try Poppler.text(output).contains("not available"))
    }

    func testMissingPictureIsNamedAndThePDFStillWritten() throws {
        try FileManager.default.copyItem(at: TemplateFixture.samplesFolder.appendingPathComponent("mmse/reloj.png"),
                                         to: folder.appendingPathComponent("pictures/reloj.png"))
        let output = try render(pictures: folder.appendingPathComponent("pictures"))
        XCTAssertEqual(try Poppler.images(output).count, 1)
        XCTAssertTrue(try Poppler.text(output).contains("picture boligrafo.png not available"))
        let none = try render(pictures: nil)
        XCTAssertEqual(try Poppler.images(none).count, 0)
        XCTAssertTrue(try Poppler.text(none).contains("picture reloj.png not available"))
    }
}
