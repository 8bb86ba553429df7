import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `GET /api/v1/templates/{id}/export.zip`: the stored submissions as MIKit's `ExportWriter`
/// lays them out (zip of CSV + media, or JSON Lines), with the statistics' filters and
/// permissions, the refusals of bad input, and the office's export link.
class ExportAPITests: EngineTestCase {
    static let path = "/api/v1/templates/pump-inspection/export.zip"

    /// Media of ana's first form (on `guard`) and bob's first (on `notes`), by name.
    static let anaMedia = ["Qid0(1).jpg": Data((0..<70_000).map { UInt8($0 % 253) }), "Qid0(2).png": Data("Ñuñoa".utf8)]
    static let bobMedia = ["Qid5(1).jpg": Data(repeating: 0x42, count: 1234)]

    /// The statistics tests' five samples, two of them with media, uploaded as the foreman.
    static func upload(_ client: any TestClientProtocol) async throws -> [Form] {
        let foreman = try await client.login("fiona")
        let template = try TemplateFixture.sampleTemplate()
        var forms: [Form] = []
        for (index, sample) in StatisticsAPITests.samples.enumerated() {
            var form = try StatisticsAPITests.form(sample, template: template)
            let media = index == 0 ? anaMedia : index == 3 ? bobMedia : [:]
            if index == 0 { form.answers["guard"]?.media = media.keys.sorted() }
            if index == 3 { form.answers["notes"] = Answer(value: .text("photo"), media: media.keys.sorted()) }
            var body = MultipartBody()
            body.add(form: try FormFile.encode(form))
            for name in media.keys.sorted() { body.add(media: name, data: media[name] ?? Data()) }
            try await assertStatus(.created, await client.upload(body, token: foreman))
            forms.append(form)
        }
        return forms
    }

    static func archive(_ response: TestResponse, file: StaticString = #filePath, line: UInt = #line) throws -> ZipArchiveReader {
        XCTAssertEqual(response.status, .ok, response.text, file: file, line: line)
        XCTAssertEqual(response.headers[.contentType], "application/zip", file: file, line: line)
        return try ZipArchiveReader(Array(buffer: response.body))
    }

    /// The CSV's records, parsed by RFC 4180 (quotes doubled inside quoted fields, CRLF ends a record).
    static func records(_ bytes: [UInt8]) throws -> [[String]] {
        XCTAssertEqual(Array(bytes.prefix(3)), [0xEF, 0xBB, 0xBF], "a byte-order mark for Excel")
        let text = Array(String(decoding: bytes.dropFirst(3), as: UTF8.self))
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var index = 0
        var quoted = false
        while index < text.count {
            let character = text[index]
            if quoted {
                if character == "\"" {
                    if index + 1 < text.count, text[index + 1] == "\"" { field.append("\""); index += 1 } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                record.append(field); field = ""
            } else if character == "\r\n" {
                record.append(field); field = ""
                records.append(record); record = []
            } else {
                XCTAssertNotEqual(character, "\n", "records end with CRLF")
                field.append(character)
            }
            index += 1
        }
        XCTAssertTrue(record.isEmpty && field.isEmpty, "the last record ends with CRLF")
        return records
    }

    /// The CSV MIKit's layout gives `forms` (the same code as `mi export`, with the server's
    /// review state last: every one `received` here), as bytes.
    static func expectedCSV(_ forms: [Form], present: [FormID: Int] = [:]) throws -> [UInt8] {
        let layout = CSVLayout(template: try TemplateFixture.sampleTemplate(), reviewStates: true)
        var bytes = CSVText.byteOrderMark
        CSVText.append(layout.header, to: &bytes)
        for form in forms { CSVText.append(layout.row(for: form, attachmentsPresent: present[form.id] ?? 0), to: &bytes) }
        return bytes
    }

    func testTheForemanExportsEveryFormWithItsMedia() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.upload(client)
            let token = try await client.login("fiona")
            let response = try await client.get(Self.path, token: token)
            let archive = try Self.archive(response)
            XCTAssertNil(response.headers[.contentLength], "streamed")
            // The first entry's MS-DOS time and date: the server's clock (2026-03-02 09:00 UTC), not the wall's.
            XCTAssertEqual(Array(Array(buffer: response.body)[10..<14]), [0x00, 0x48, 0x62, 0x5C])
            XCTAssertTrue(response.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"pump-inspection-export.zip\"") ?? false,
                          response.headers[.contentDisposition] ?? "")
            let ana = forms[0].id.description, bob = forms[3].id.description
            XCTAssertEqual(archive.entries.map(\.name), ["pump-inspection.csv", "media/\(ana)/Qid0(1).jpg", "media/\(ana)/Qid0(2).png",
                                                     "media/\(bob)/Qid5(1).jpg"])
            for (name, data) in Self.anaMedia { XCTAssertEqual(archive.entry("media/\(ana)/\(name)")?.data, Array(data), name) }
            for (name, data) in Self.bobMedia { XCTAssertEqual(archive.entry("media/\(bob)/\(name)")?.data, Array(data), name) }

            let csv = try XCTUnwrap(archive.entry("pump-inspection.csv")).data
            XCTAssertEqual(csv, try Self.expectedCSV(forms, present: [forms[0].id: 2, forms[3].id: 1]))
            let records = try Self.records(csv)
            let header = try XCTUnwrap(records.first)
            XCTAssertEqual(header.first, "SubmissionDate")
            XCTAssertEqual(Array(header.suffix(8)), ["KEY", "User", "UserName", "FormVersion", "AttachmentsPresent",
                                                     "AttachmentsExpected", "ForemanComments", "ReviewState"])
            XCTAssertTrue(header.contains("noise/Normal") && header.contains("noise-comment"), "\(header)")
            let rows = records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
            XCTAssertEqual(rows.count, 5)
            XCTAssertEqual(rows.map { $0["KEY"] }, forms.map { $0.id.description }, "submission order")
            XCTAssertEqual(rows.map { $0["User"] }, ["ana", "ana", "ana", "bob", "bob"])
            XCTAssertEqual(rows.map { $0["AttachmentsPresent"] }, ["2", "0", "0", "1", "0"])
            XCTAssertEqual(rows[0]["leaks"], "Mechanical seal Suction flange")
            XCTAssertEqual(rows[0]["leaks/Suction flange"], "1")
            XCTAssertEqual(rows[1]["leaks/Suction flange"], "0")
            XCTAssertEqual(rows[2]["noise-comment"], "too loud to tell")
            XCTAssertEqual(rows[0]["bearings-Drive end-Temperature"], "61", "a table cell column")
            XCTAssertEqual(rows[0]["bearings-Motor-Vibration"], "", "a cell left empty")

            let bare = try Self.archive(await client.get(Self.path + "?media=false", token: token))
            XCTAssertEqual(bare.entries.map(\.name), ["pump-inspection.csv"], "no media entries")
            XCTAssertEqual(bare.entry("pump-inspection.csv")?.data, csv, "the rows still count the attachments present")

            let days = try Self.archive(await client.get(Self.path + "?from=2026-03-04&to=2026-03-04", token: token))
            XCTAssertEqual(days.entry("pump-inspection.csv")?.data, try Self.expectedCSV([forms[2], forms[3]], present: [forms[3].id: 1]))
            XCTAssertEqual(days.entries.map(\.name), ["pump-inspection.csv", "media/\(bob)/Qid5(1).jpg"])
        }
    }

    func testJSONLinesHoldOneStoredFormPerLine() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.upload(client)
            let token = try await client.login("fiona")
            let response = try await client.get(Self.path + "?format=jsonl&user=bob", token: token)
            XCTAssertEqual(response.status, .ok, response.text)
            XCTAssertEqual(response.headers[.contentType], "application/x-ndjson")
            XCTAssertTrue(response.headers[.contentDisposition]?.contains("pump-inspection-export.jsonl") ?? false)
            let lines = response.text.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.count, 3, "two forms, each line ended by a line feed")
            XCTAssertEqual(lines.last, "")
            let decoded = try lines.dropLast().map { try FormFile.decode(Data($0.utf8)) }
            XCTAssertEqual(decoded.map(\.id), [forms[3].id, forms[4].id])
            XCTAssertEqual(decoded.map(\.answers), [forms[3].answers, forms[4].answers])
            let all = try await client.get(Self.path + "?format=JSONL", token: token)
            XCTAssertEqual(all.text.split(separator: "\n").count, 5)
        }
    }

    func testGeoJSONOfFormsWithoutALocationIsAnEmptyCollection() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await Self.upload(client)
            let token = try await client.login("fiona")
            let response = try await client.get(Self.path + "?format=geojson", token: token)
            XCTAssertEqual(response.status, .ok, response.text)
            XCTAssertEqual(response.headers[.contentType], "application/geo+json")
            XCTAssertTrue(response.headers[.contentDisposition]?.contains("pump-inspection-export.geojson") ?? false)
            let collection = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
            XCTAssertEqual(collection["type"] as? String, "FeatureCollection")
            XCTAssertEqual((collection["features"] as? [Any])?.count, 0, "no pump inspection has a location")
        }
    }

    func testATechnicianExportsOnlyTheirOwnAndIsRefusedAnothers() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.upload(client)
            let ana = try await client.login("ana")
            let own = try Self.archive(await client.get(Self.path, token: ana))
            XCTAssertEqual(own.entry("pump-inspection.csv")?.data, try Self.expectedCSV(Array(forms[0..<3]), present: [forms[0].id: 2]))
            XCTAssertEqual(own.entries.count, 3, "the CSV and ana's two media files, none of bob's")
            let named = try Self.archive(await client.get(Self.path + "?user=ana", token: ana))
            XCTAssertEqual(named.entries.map(\.name), own.entries.map(\.name))
            let other = try await client.get(Self.path + "?user=bob", token: ana)
            XCTAssertEqual(other.status, .forbidden, other.text)
            XCTAssertTrue(other.errorMessage?.contains("bob") ?? false, other.text)
            try await assertStatus(.unauthorized, await client.get(Self.path, token: nil))
        }
    }

    func testBadParametersAndUnknownTemplatesAreRefused() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await Self.upload(client)
            let token = try await client.login("fiona")
            for (query, parameter) in [("media=maybe", "media"), ("format=xml", "format"), ("format=", "format"), ("media=", "media"), ("from=2026-13-01", "from"),
                                       ("to=yesterday", "to"), ("version=0", "version"), ("user=a%2Fb", "user")] {
                let response = try await client.get(Self.path + "?" + query, token: token)
                XCTAssertEqual(response.status, .badRequest, "\(query): \(response.text)")
                XCTAssertTrue(response.errorMessage?.contains("`\(parameter)`") ?? false, "\(query): \(response.text)")
            }
            let unknown = try await client.get("/api/v1/templates/no-such-template/export.zip", token: token)
            XCTAssertEqual(unknown.status, .notFound, unknown.text)
            XCTAssertTrue(unknown.errorMessage?.contains("no-such-template") ?? false, unknown.text)
        }
    }

    /// The statistics page links to the export with its filters; the link works with the
    /// office's cookie alone.
    func testTheStatisticsPageLinksToTheExportWithItsFilters() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.upload(client)
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await StatisticsPageTests.get(client, StatisticsPageTests.path + "?from=2026-03-04&to=&user=bob&groupBy=noise", session)
            XCTAssertEqual(page.status, .ok, page.text)
            let link = try XCTUnwrap(SubmissionListPageTests.href(ofID: "export-zip", in: page.text), page.text)
            XCTAssertEqual(link, Self.path + "?from=2026-03-04&user=bob")
            let response = try await client.execute(uri: link, method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            let archive = try Self.archive(response)
            XCTAssertEqual(archive.entry("pump-inspection.csv")?.data, try Self.expectedCSV([forms[3], forms[4]], present: [forms[3].id: 1]))
        }
    }
}

/// `ExportAPITests` with mi-server on PostgreSQL: the export give the same results as on SQLite.
final class PostgresExportAPITests: ExportAPITests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws { try await assertUploadsLandInTheEngine() }
}
