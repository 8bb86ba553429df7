import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import MIXLSForm
import TestSupport
import XCTest

/// The office's template upload takes an XLSForm with the CSV its select_one_from_file names;
/// a refused one leaves the templates folder byte for byte as it was; every version downloads as
/// an XLSForm that imports back to the same template.
final class XLSFormUploadTests: XCTestCase {
    private static func upload(_ client: any TestClientProtocol, _ files: [(String, Data)], session: OfficeBrowserSession) async throws -> TestResponse {
        var body = MultipartBody()
        body.parts.append(.init(name: "_csrf", filename: nil, contentType: nil, data: Data(session.csrf.utf8)))
        for (name, data) in files {
            body.parts.append(.init(name: "template", filename: name, contentType: "application/octet-stream", data: data))
        }
        return try await client.execute(uri: "/templates/upload", method: .post,
                                        headers: [.cookie: session.cookieHeader, .contentType: body.contentType, .accept: "text/html"],
                                        body: ByteBuffer(bytes: body.data)) { $0 }
    }

    private static func get(_ client: any TestClientProtocol, _ path: String, session: OfficeBrowserSession) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: [.cookie: session.cookieHeader, .accept: "text/html"]) { $0 }
    }

    static func xlsform(_ survey: [[String?]], choices: [[String?]]? = nil) throws -> Data {
        func sheet(_ name: String, _ rows: [[String?]]) -> XLSXWriter.Sheet {
            XLSXWriter.Sheet(name: name, rows: rows.map { $0.map { $0.map(XLSXValue.string) } })
        }
        return try XLSXWriter().data([sheet("survey", survey)] + (choices.map { [sheet("choices", $0)] } ?? [])
                                     + [sheet("settings", [["form_id", "version", "form_title"], ["towns", "2", "Towns"]])])
    }

    /// Every file of the folder with its bytes.
    static func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    static let survey: [[String?]] = [
        ["type", "name", "label", "choice_filter", "appearance"],
        ["select_one region", "region", "Region"],
        ["select_one_from_file towns.csv", "town", "Town", "region = ${region}", "minimal"],
    ]
    static let choices: [[String?]] = [["list_name", "name", "label"], ["region", "n", "North"], ["region", "s", "South"]]
    static let towns = Data("name,label,region\nn1,North town,n\ns1,South town,s\n".utf8)

    func testAnXLSFormWithItsCSVIsPublishedWithItsWarningsAndDownloadsAsAnXLSForm() async throws {
        let fixture = try ServerFixture()
        let form = try Self.xlsform(Self.survey, choices: Self.choices)
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.upload(client, [("towns.xlsx", form), ("towns.csv", Self.towns)], session: fiona)
            XCTAssertEqual(response.status, .ok, response.text)
            XCTAssertTrue(response.text.contains("Published towns version 2."), response.text)
            XCTAssertTrue(response.text.contains("<ul class=\"warnings\">"), response.text)
            XCTAssertTrue(response.text.contains("appearance &quot;minimal&quot; (row 3): MI does not draw it"), response.text)
            XCTAssertTrue(response.text.contains("href=\"/templates/towns/versions/2/xlsform\""), response.text)

            let token = try await client.login("fiona")
            let served = try await client.get("/api/v1/templates/towns", token: token)
            let template = try TemplateCoding().decode(Data(buffer: served.body), source: "served")
            let town = try XCTUnwrap(template.question(id: "town")?.type as? MultipleChoiceQuestion)
            XCTAssertEqual(town.choices, [.init(name: "n1", label: "North town", attributes: ["region": "n"]),
                                          .init(name: "s1", label: "South town", attributes: ["region": "s"])])

            let download = try await Self.get(client, "/templates/towns/versions/2/xlsform", session: fiona)
            XCTAssertEqual(download.status, .ok)
            XCTAssertEqual(download.headers[.contentType], "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
            XCTAssertTrue(download.headers[.contentDisposition]?.contains("towns.v2.xlsx") == true)
            let back = try XLSForm.read(data: Data(buffer: download.body), fileName: "towns.v2.xlsx", files: [:])
            XCTAssertEqual(back.template, template)
            try await assertStatus(.notFound, await Self.get(client, "/templates/towns/versions/9/xlsform", session: fiona))
        }
    }

    func testARefusedXLSFormNamesEachCellAndLeavesTheFolderAsItWas() async throws {
        let fixture = try ServerFixture()
        let before = try Self.snapshot(fixture.templates)
        let bad = try Self.xlsform([
            ["type", "name", "label", "calculation"],
            ["select_one_from_file towns.csv", "town", "Town"],
            ["calculate", "owner", nil, "pulldata('owners', 'name', 'town', ${town})"],
        ])
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.upload(client, [("towns.xlsx", bad)], session: fiona)
            XCTAssertEqual(response.status, .unprocessableContent, response.text)
            XCTAssertTrue(response.text.contains("<li>towns.xlsx: sheet survey, row 2, column type (A): the choices file towns.csv is missing; put it beside the XLSForm (or upload it with the XLSForm)</li>"), response.text)
            XCTAssertTrue(response.text.contains("<li>towns.xlsx: sheet survey, row 3, column calculation (D): pulldata() reads values"), response.text)
            // Not an .xlsx at all, and two XLSForms at once.
            let garbage = try await Self.upload(client, [("towns.xlsx", Data("not a zip".utf8))], session: fiona)
            XCTAssertEqual(garbage.status, .unprocessableContent, garbage.text)
            XCTAssertTrue(garbage.text.contains("is not an .xlsx workbook"), garbage.text)
            let two = try await Self.upload(client, [("a.xlsx", bad), ("b.xlsx", bad)], session: fiona)
            XCTAssertEqual(two.status, .badRequest, two.text)
        }
        XCTAssertEqual(try Self.snapshot(fixture.templates), before)
    }
}
