import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The same uploads, at the same times, stored by one mi-server on SQLite and one on
/// PostgreSQL: the statistics JSON, every page of the listing in every order, the exports and
/// the office pages are byte for byte the same.
final class EngineParityTests: XCTestCase {
    /// Form names and users whose order differs between a byte-wise and a language collation
    /// (capitals, accents, digits), so the sorts show which one each engine uses.
    static let names = ["pump-1", "Pump-2", "pump-10", "pump-9", "Ölpumpe", "bomba-ñ", "pump_3", "Bomba"]
    static let users = ["ana", "bob", "chloé", "ana", "bob"]
    static let notes = ["Válvula rota cerca de la bomba", "all fine", "pump noisy at start", "Kühler undicht", "motor not measured"]

    /// One extra form: `index` picks its name, user, note and answers.
    static func form(_ index: Int, template: Template) -> Form {
        let id = FormID(String(format: "00000000-0000-4000-8000-%012d", index + 1)) ?? FormID()
        var form = Form(id: id, name: names[index % names.count], user: users[index % users.count], template: template,
                        createdAt: TestClock.start)
        form.status = .completed
        // Some forms share their submission second, one has none.
        form.submittedAt = index == 5 ? nil : TestClock.start.addingTimeInterval(TimeInterval((index / 2) * 3600))
        form.answers["notes"] = Answer(value: .text(notes[index % notes.count]))
        form.answers["guard"] = Answer(value: .bool(index % 3 != 0))
        form.answers["noise"] = Answer(value: .choices([["Normal", "Humming", "Grinding"][index % 3]]))
        form.answers["hours"] = Answer(value: .number(Double(800 + index * 37)))
        form.answers["pressure"] = Answer(value: .number(Double(index) / 4))
        if index == 4 { form.foremanComments = [ForemanComment(at: TestClock.start, by: "fiona", text: "call the Ölservice")] }
        if index == 6 { form.userDisplayName = "Chloé Martin" }
        return form
    }

    /// Two more templates, one form each: in the dashboard they tie, and their ids order
    /// differently byte-wise ("-" before "_") and by a language's collation ("_" before "-").
    static let others = [(id: "pump-audit", title: "pump audit"), (id: "pump_check", title: "Pump check")]

    /// Every request the comparison makes and who makes it: the API's with a bearer token, the
    /// office's pages with a cookie.
    static func requests() -> [(uri: String, user: String)] {
        let stats = "/api/v1/templates/pump-inspection/stats"
        let export = "/api/v1/templates/pump-inspection/export.zip"
        var requests: [(String, String)] = []
        for query in ["", "?groupBy=noise", "?groupBy=leaks&user=ana", "?user=bob", "?from=2026-03-03&to=2026-03-04", "?version=3&groupBy=guard"] {
            requests.append((stats + query, "fiona"))
        }
        requests.append((stats, "ana"))
        for query in ["", "?media=false", "?format=jsonl", "?user=chlo%C3%A9", "?from=2026-03-04&to=2026-03-04"] {
            requests.append((export + query, "fiona"))
        }
        requests.append((export + "?format=jsonl", "ana"))
        for uri in ["/", "/submissions", "/submissions?sort=technician&order=asc", "/submissions?q=valvula",
                    "/templates/pump-inspection/stats?groupBy=noise", "/submissions/00000000-0000-4000-8000-000000000005",
                    "/?by=submitted", "/submissions?dates=submitted&from=2026-03-02&to=2026-03-03&simulated=hide",
                    "/submissions?sort=formName&order=asc&limit=4",
                    "/templates/pump-inspection/stats?dates=uploaded&from=2026-03-02&to=2026-03-05"] {
            requests.append((uri, "fiona"))
        }
        requests.append(("/submissions", "ana"))
        return requests
    }

    /// The listing's first pages: every sort both ways, a search, filters; the pages that
    /// follow come from their cursors.
    static let listings = SubmissionQuery.Sort.allCases.flatMap { sort in
        ["asc", "desc"].map { "/api/v1/submissions?limit=3&sort=\(sort.rawValue)&order=\($0)" }
    } + ["/api/v1/submissions?limit=2&q=VALVULA", "/api/v1/submissions?limit=4&q=motor+not",
         "/api/v1/submissions?limit=2&user=ana&template=pump-inspection&from=2026-03-02&to=2026-03-04",
         "/api/v1/submissions?limit=5&q=%C3%B6lservice", "/api/v1/submissions?limit=3&user=chlo%C3%A9",
         "/api/v1/submissions?limit=3&dates=submitted&from=2026-03-03&to=2026-03-06&sort=formName"]

    /// What a server on `engine` answers to every request, in order, after the same uploads.
    func answers(_ engine: RepositoryEngine) async throws -> [(uri: String, body: [UInt8])] {
        // PostgreSQL with a language's collation: an ORDER BY the server leaves to the
        // database's default would sort "Bomba" between "bomba" and "Ölpumpe", as SQLite never does.
        let fixture = engine == .sqlite ? try ServerFixture() : try ServerFixture(try ServerFixture.postgresEdits(icuLocale: "en-US").edits)
        var others: [Template] = []
        for other in Self.others {
            let json = TemplateFixture.sampleJSON
                .replacingOccurrences(of: "\"id\": \"\(TemplateFixture.sampleID)\"", with: "\"id\": \"\(other.id)\"")
                .replacingOccurrences(of: "Centrifugal pump — monthly inspection", with: other.title)
            try Files.write(json, to: fixture.templates.appendingPathComponent("\(other.id).json"))
            others.append(try TemplateCoding().decode(Data(json.utf8), source: other.id))
        }
        XCTAssertEqual(others.map(\.id), Self.others.map(\.id))
        let templates = others
        return try await fixture.test { client in
            let start = fixture.clock.now
            var foreman = try await client.login("fiona")
            _ = try await ExportAPITests.upload(client)
            fixture.clock.now = start.addingTimeInterval(600)
            try await SubmissionAPITests.uploadTwo(client, foreman: foreman)
            let template = try TemplateFixture.sampleTemplate()
            for index in 0..<16 {
                // Pairs share their upload second; the pairs are a day and a half apart (each
                // pair with a new token: the clock outruns the last one).
                fixture.clock.now = start.addingTimeInterval(TimeInterval(1200 + (index / 2) * 129_600))
                if index % 2 == 0 { foreman = try await client.login("fiona") }
                var body = MultipartBody()
                body.add(form: try FormFile.encode(Self.form(index, template: template)))
                try await assertStatus(.created, await client.upload(body, token: foreman))
            }
            for (offset, other) in templates.enumerated() {
                var body = MultipartBody()
                body.add(form: try FormFile.encode(Self.form(16 + offset, template: other)))
                try await assertStatus(.created, await client.upload(body, token: foreman))
            }
            fixture.clock.now = start.addingTimeInterval(14 * 86_400)
            foreman = try await client.login("fiona")

            var answers: [(uri: String, body: [UInt8])] = []
            var sessions: [String: OfficeBrowserSession] = [:]
            var tokens: [String: String] = [:]
            for (uri, user) in Self.requests() {
                let response: TestResponse
                if uri.hasPrefix("/api/") {
                    if tokens[user] == nil { tokens[user] = try await client.login(user) }
                    response = try await client.get(uri, token: tokens[user])
                } else {
                    if sessions[user] == nil { sessions[user] = try await client.officeSession(user, fixture: fixture) }
                    let session = try XCTUnwrap(sessions[user])
                    response = try await SubmissionListPageTests.get(client, uri, session)
                    // Each server signs its own CSRF tokens: the one difference that is not data.
                    answers.append((uri + " as " + user, Array(response.text.replacingOccurrences(of: session.csrf, with: "CSRF").utf8)))
                    XCTAssertEqual(response.status, .ok, "\(engine) \(uri)")
                    continue
                }
                XCTAssertEqual(response.status, .ok, "\(engine) \(uri): \(response.text)")
                answers.append((uri + " as " + user, Array(buffer: response.body)))
            }
            for first in Self.listings {
                var uri = first
                var previous: String?
                for page in 0..<30 {
                    let response = try await client.get(uri, token: foreman)
                    XCTAssertEqual(response.status, .ok, "\(engine) \(uri): \(response.text)")
                    answers.append(("\(first) page \(page)", Array(buffer: response.body)))
                    previous = try SubmissionAPITests.page(response).previousCursor
                    guard let cursor = try SubmissionAPITests.page(response).nextCursor else { break }
                    uri = first + "&cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)
                }
                // And back from the last page with `before`.
                for page in 0..<30 {
                    guard let cursor = previous else { break }
                    let back = first + "&before=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)
                    let response = try await client.get(back, token: foreman)
                    XCTAssertEqual(response.status, .ok, "\(engine) \(back): \(response.text)")
                    answers.append(("\(first) back \(page)", Array(buffer: response.body)))
                    previous = try SubmissionAPITests.page(response).previousCursor
                }
            }
            // Names in natural order: pump-9 before pump-10, whatever the engine.
            let named = try await client.get("/api/v1/submissions?limit=500&sort=formName&order=asc", token: foreman)
            let names = try SubmissionAPITests.page(named).submissions.map(\.formName)
            XCTAssertEqual(names, names.sorted(by: NaturalOrder.precedes), "\(engine)")
            XCTAssertLessThan(try XCTUnwrap(names.firstIndex(of: "pump-9")), try XCTUnwrap(names.firstIndex(of: "pump-10")), "\(engine)")
            return answers
        }
    }

    func testSQLiteAndPostgreSQLGiveTheSameBytes() async throws {
        let sqlite = try await answers(.sqlite)
        let postgres = try await answers(.postgres)
        XCTAssertEqual(sqlite.map(\.uri), postgres.map(\.uri), "the same pages, the cursors led to as many")
        for (left, right) in zip(sqlite, postgres) where left.body != right.body {
            XCTFail("\(left.uri) differs:\nSQLite:     \(String(decoding: left.body, as: UTF8.self).prefix(3000))\n"
                    + "PostgreSQL: \(String(decoding: right.body, as: UTF8.self).prefix(3000))")
        }

        // The comparison is of real content: every form counted, pages followed.
        let all = try XCTUnwrap(sqlite.first)
        XCTAssertEqual(try WireJSON.decoder().decode(TemplateStatistics.self, from: Data(all.body)).forms, 5 + 2 + 16)
        XCTAssertGreaterThan(sqlite.filter { $0.uri.hasSuffix("page 7") }.count, 0, "listings of several pages")
        let zip = try XCTUnwrap(sqlite.first { $0.uri.hasPrefix("/api/v1/templates/pump-inspection/export.zip as") })
        let csv = try XCTUnwrap(try ZipArchiveReader(zip.body).entry("pump-inspection.csv")).data
        XCTAssertEqual(try ExportAPITests.records(csv).count, 1 + 23)
        // Templates with as many forms are in the byte order of their ids, on both.
        let dashboard = String(decoding: try XCTUnwrap(postgres.first { $0.uri == "/ as fiona" }).body, as: UTF8.self)
        let audit = try XCTUnwrap(dashboard.range(of: "<title>pump audit (pump-audit): 1</title>"), dashboard)
        let check = try XCTUnwrap(dashboard.range(of: "<title>Pump check (pump_check): 1</title>"), dashboard)
        XCTAssertLessThan(audit.lowerBound, check.lowerBound)
    }
}
