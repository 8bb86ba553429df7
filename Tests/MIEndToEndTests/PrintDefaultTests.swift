import Foundation
import XCTest

/// `mi print FORM` without --output, and the technician named by display name in the PDF.
final class PrintDefaultTests: XCTestCase {
    func pdfText(_ pdf: URL) throws -> String {
        let text = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-enc", "UTF-8", pdf.path, "-"])
        XCTAssertEqual(text.status, 0, text.stderr)
        return text.stdout
    }

    func testPrintWithoutOutputWritesNamePDFNamingTheTechnician() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check", name: "hall-b")
        let printed = try sandbox.run(["print", name])
        XCTAssertEqual(printed.status, 0, printed.output)
        let pdf = sandbox.root.appendingPathComponent("hall-b.pdf")
        XCTAssertTrue(printed.stdout.contains("Wrote \(pdf.path)"), printed.stdout)
        XCTAssertTrue(try pdfText(pdf).contains("Ana Pérez (ana)"))

        // The default file is never replaced without --force.
        let before = Data("an earlier, signed copy".utf8)
        try before.write(to: pdf)
        let again = try sandbox.run(["print", name])
        XCTAssertEqual(again.status, 65, again.output)
        XCTAssertTrue(again.stderr.contains("\(pdf.path) already exists"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: pdf), before)
        XCTAssertEqual(try sandbox.run(["print", name, "--force"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: pdf).prefix(5), Data("%PDF-".utf8), "--force replaced the file")
    }

    func testAReassignedFormNamesItsNewTechnician() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "bob")
        let name = try sandbox.newForm("extinguisher-check", as: "bob", name: "moving")
        let assigned = try sandbox.run(["assign", "bob/\(name)", "--to", "ana"], as: "fiona")
        XCTAssertEqual(assigned.status, 0, assigned.output)
        let pdf = sandbox.root.appendingPathComponent("moved.pdf")
        XCTAssertEqual(try sandbox.run(["print", name, "--output", pdf.path]).status, 0)
        XCTAssertTrue(try pdfText(pdf).contains("Ana Pérez (ana)"))
    }
}
