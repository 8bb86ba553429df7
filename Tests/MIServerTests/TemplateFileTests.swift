import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `GET /api/v1/templates/{id}/files/{name}`: the pictures a template's questions show.
final class TemplateFileTests: XCTestCase {
    static let pictured = TemplateFixture.json(questions: [
        #"{"id": "watch", "type": "shortAnswer", "text": "What is it?", "image": "reloj.png"}"#,
        #"{"id": "pen", "type": "shortAnswer", "text": "And this?", "image": "photo.JPG"}"#,
    ], id: "pictured")

    /// The fixture with template `pictured` and its two files in `templates/pictured/`.
    static func fixture(withFiles: Bool = true) throws -> (ServerFixture, png: Data) {
        let fixture = try ServerFixture()
        try Files.write(pictured, to: fixture.templates.appendingPathComponent("pictured.json"))
        let png = try Data(contentsOf: TemplateFixture.samplesFolder.appendingPathComponent("mmse/reloj.png"))
        if withFiles {
            try Files.write(png, to: fixture.templates.appendingPathComponent("pictured/reloj.png"))
            try Files.write(Data([0xFF, 0xD8, 0xFF, 0xD9]), to: fixture.templates.appendingPathComponent("pictured/photo.JPG"))
        }
        return (fixture, png)
    }

    func testNamedFileIsServedByteForByteWithItsTypeAndETag() async throws {
        let (fixture, png) = try Self.fixture()
        try await fixture.test { client in
            let token = try await client.login("ana")
            let response = try await client.get("/api/v1/templates/pictured/files/reloj.png", token: token)
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(Data(buffer: response.body), png)
            XCTAssertEqual(response.headers[.contentType], "image/png")
            XCTAssertEqual(response.headers[.eTag], "\"\(ServerFixture.sha256(png))\"")
            let jpeg = try await client.get("/api/v1/templates/pictured/files/photo.JPG", token: token)
            XCTAssertEqual(jpeg.status, .ok)
            XCTAssertEqual(jpeg.headers[.contentType], "image/jpeg")
            XCTAssertEqual(Data(buffer: jpeg.body), Data([0xFF, 0xD8, 0xFF, 0xD9]))
        }
    }

    func testFileNeedsTheToken() async throws {
        let (fixture, _) = try Self.fixture()
        try await fixture.test { client in
            try await assertStatus(.unauthorized, await client.get("/api/v1/templates/pictured/files/reloj.png", token: nil))
        }
    }

    func testUnnamedFilesAndTraversalNamesAre404NamingTheFile() async throws {
        let (fixture, _) = try Self.fixture()
        // Files that exist but no question names: never served.
        try Files.write("secret", to: fixture.templates.appendingPathComponent("pictured/other.png"))
        try await fixture.test { client in
            let token = try await client.login("ana")
            for path in ["pictured/files/other.png", "pictured/files/..%2Fpictured.json", "pictured/files/%2E%2E",
                         "pictured/files/..%2F..%2Fdata%2Fmi.sqlite", "nothing/files/reloj.png", "..%2Fpictured/files/reloj.png",
                         "pump-inspection/files/reloj.png"] {
                let response = try await client.get("/api/v1/templates/" + path, token: token)
                XCTAssertEqual(response.status, .notFound, path)
                XCTAssertNotEqual(Data(buffer: response.body).range(of: Data("secret".utf8)) != nil, true, path)
                XCTAssertNotNil(response.errorMessage, path)
            }
            let response = try await client.get("/api/v1/templates/pictured/files/other.png", token: token)
            XCTAssertTrue(response.errorMessage?.contains("has no file \"other.png\"") == true, response.errorMessage ?? "")
        }
    }

    func testTemplateWithMissingFileIsServedAndTheFileIs404AndLogged() async throws {
        let (fixture, _) = try Self.fixture(withFiles: false)
        try await fixture.test { client in
            let token = try await client.login("ana")
            let templates = try await TemplateTests.list(client, token: token)
            XCTAssertTrue(templates.contains { $0["id"] as? String == "pictured" })
            let response = try await client.get("/api/v1/templates/pictured/files/reloj.png", token: token)
            XCTAssertEqual(response.status, .notFound)
            XCTAssertTrue(response.errorMessage?.contains("\"reloj.png\" of template \"pictured\" is missing on the server") == true,
                          response.errorMessage ?? "")
        }
        let warnings = fixture.logs.messages.filter { $0.hasPrefix("warning") && $0.contains("pictured") }
        XCTAssertEqual(warnings.count, 1, "\(fixture.logs.messages)")
        XCTAssertTrue(warnings.first?.contains("reloj.png, photo.JPG") == true, "\(warnings)")
    }
}

/// The office's `/templates/{id}/files/{name}` and the pages that show the pictures.
final class TemplateFileOfficeTests: XCTestCase {
    func testOfficePagesDrawThePicturesFromTheCookieRoute() async throws {
        let (fixture, png) = try TemplateFileTests.fixture()
        let template = try TemplateCoding(keys: TemplateKeys(names: [:])).decode(TemplateFileTests.pictured, source: "pictured.json")
        var form = Form(id: ServerFixture.formID, name: "pictured-1", user: "ana", template: template, createdAt: TestClock.start)
        form.status = .completed
        form.answers["watch"] = Answer(value: .text("reloj"))
        form.answers["pen"] = Answer(value: .text("pluma"))
        let formData = try FormFile.encode(form)
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: formData, media: [:]), token: token))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let id = ServerFixture.formID.description
            let page = try await client.execute(uri: "/submissions/\(id)", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(page.status, .ok, page.text)
            XCTAssertTrue(page.text.contains(#"<img src="/templates/pictured/files/reloj.png" alt="The picture question 1 shows (reloj.png)">"#), page.text)
            XCTAssertTrue(page.text.contains(#"<img src="/templates/pictured/files/photo.JPG" alt="The picture question 2 shows (photo.JPG)">"#), page.text)
            let list = try await client.execute(uri: "/templates", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertTrue(list.text.contains(#"<img src="/templates/pictured/files/reloj.png""#), list.text)

            // The <img> the browser fetches: with the cookie alone, under the page's CSP ('self' images).
            let image = try await client.execute(uri: "/templates/pictured/files/reloj.png", method: .get,
                                                 headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(image.status, .ok)
            XCTAssertEqual(Data(buffer: image.body), png)
            XCTAssertEqual(image.headers[.contentType], "image/png")
            XCTAssertTrue(page.headers[.contentSecurityPolicy]?.contains("img-src 'self'") == true)
            let unnamed = try await client.execute(uri: "/templates/pictured/files/pictured.json", method: .get,
                                                   headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(unnamed.status, .notFound)
            let anonymous = try await client.execute(uri: "/templates/pictured/files/reloj.png", method: .get) { $0 }
            XCTAssertNotEqual(anonymous.status, .ok)
            XCTAssertNotEqual(Data(buffer: anonymous.body), png)

            // The PDF the page offers draws both pictures from the server's folder.
            let pdf = try await client.execute(uri: "/submissions/\(id)/report.pdf", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(pdf.status, .ok, pdf.text)
            let file = fixture.templates.appendingPathComponent("report.pdf")
            try Data(buffer: pdf.body).write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/pdfimages")
            process.arguments = ["-list", file.path]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let listing = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(listing.split(separator: "\n").count - 2, 1, "reloj.png drawn; photo.JPG is not a real JPEG, named instead: \(listing)")
        }
    }
}
