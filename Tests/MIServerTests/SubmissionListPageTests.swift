import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `/submissions` (filters, search, sorting, pages) and the dashboard `/`, as a browser gets them.
class SubmissionListPageTests: EngineTestCase {
    static let bobFormID = SubmissionAPITests.bobFormID

    /// ana's sample form, then bob's (its note "válvula rota"), both uploaded by fiona.
    static func uploadTwo(_ client: any TestClientProtocol) async throws {
        try await SubmissionAPITests.uploadTwo(client, foreman: try await client.login("fiona"))
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, _ session: OfficeBrowserSession) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: [.cookie: session.cookieHeader, .accept: "text/html"]) { $0 }
    }

    /// The `data-id`s of the table's rows, in order.
    static func rowIDs(_ html: String) -> [String] {
        html.components(separatedBy: "<tr class=\"submission\" data-id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    static func href(ofID id: String, in html: String) -> String? {
        guard let range = html.range(of: "id=\"\(id)\"") else { return nil }
        let tail = html[range.upperBound...]
        guard let start = tail.range(of: "href=\"") else { return nil }
        return String(tail[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
            .replacingOccurrences(of: "&#61;", with: "=")
    }

    static func sortHref(_ sort: String, in html: String) -> String? {
        guard let range = html.range(of: "data-sort=\"\(sort)\" href=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    func testTheForemanFiltersSearchesSortsAndPages() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            try await Self.uploadTwo(client)
            let ana = ServerFixture.formID.description, bob = Self.bobFormID.description
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await Self.get(client, "/submissions", session)
            XCTAssertEqual(page.status, .ok, page.text)
            let html = page.text
            for marker in ["<form id=\"filters\" class=\"panel filters\" method=\"get\"", "<select id=\"template\" name=\"template\">",
                           "<select id=\"user\" name=\"user\">", "<input id=\"from\" name=\"from\" type=\"date\"",
                           "<input id=\"to\" name=\"to\" type=\"date\"", "<input id=\"q\" name=\"q\"", "<button id=\"apply\"",
                           "<table id=\"submissions\"", "<p id=\"count\" class=\"muted\">1–2 of 2 submissions</p>",
                           "<a class=\"open\" href=\"/submissions/\(ana)\">pump-1</a>", "<td class=\"technician\" data-label=\"Technician\">bob</td>",
                           "<td class=\"template\" data-label=\"Template\">Centrifugal pump — monthly inspection</td>", "<option value=\"bob\">bob</option>",
                           "<a id=\"nav-submissions\" href=\"/submissions\" class=\"current\">"] {
                XCTAssertTrue(html.contains(marker), "\(marker) in\n\(html)")
            }
            XCTAssertEqual(Self.rowIDs(html), [bob, ana], "newest upload first")
            XCTAssertEqual(html.components(separatedBy: "class=\"sort").count - 1, 5)
            XCTAssertFalse(html.contains("id=\"next-page\""))
            XCTAssertFalse(html.contains("style="), "no inline style: the CSP forbids it")

            let bobs = try await Self.get(client, "/submissions?user=bob&template=&from=&to=&q=", session)
            XCTAssertEqual(Self.rowIDs(bobs.text), [bob])
            XCTAssertTrue(bobs.text.contains("<option value=\"bob\" selected>bob</option>"), bobs.text)
            XCTAssertTrue(bobs.text.contains("<p id=\"count\" class=\"muted\">1–1 of 1 submission</p>"), bobs.text)
            let search = try await Self.get(client, "/submissions?q=VALVULA+rot", session)
            XCTAssertEqual(Self.rowIDs(search.text), [bob])
            XCTAssertTrue(search.text.contains("value=\"VALVULA rot\""), "the search stays in its box")
            let none = try await Self.get(client, "/submissions?q=nothing-like-this", session)
            XCTAssertEqual(Self.rowIDs(none.text), [])
            XCTAssertTrue(none.text.contains("0 submissions"))

            // A sort header sorts by its column, again the other way.
            let byTechnician = try XCTUnwrap(Self.sortHref("technician", in: html), html)
            XCTAssertEqual(byTechnician, "/submissions?order=asc&sort=technician")
            let ascending = try await Self.get(client, byTechnician, session)
            XCTAssertEqual(Self.rowIDs(ascending.text), [ana, bob])
            XCTAssertTrue(ascending.text.contains("data-sort=\"technician\" href=\"/submissions?order=desc&amp;sort=technician\""), ascending.text)

            // One row a page: the next-page link carries the filters and the cursor.
            let first = try await Self.get(client, "/submissions?limit=1&sort=formName", session)
            XCTAssertEqual(Self.rowIDs(first.text).count, 1)
            let next = try XCTUnwrap(Self.href(ofID: "next-page", in: first.text), first.text)
            XCTAssertTrue(next.contains("limit=1") && next.contains("sort=formName") && next.contains("cursor="), next)
            let second = try await Self.get(client, next, session)
            XCTAssertEqual(second.status, .ok, second.text)
            XCTAssertEqual(Set(Self.rowIDs(first.text) + Self.rowIDs(second.text)), [ana, bob])
            XCTAssertFalse(second.text.contains("id=\"next-page\""))
            XCTAssertTrue(second.text.contains("id=\"first-page\""))
            XCTAssertTrue(second.text.contains("<p id=\"count\" class=\"muted\">2–2 of 2 submissions</p>"), second.text)
            // Previous leads back to the first page, which has no previous page of its own.
            let previous = try XCTUnwrap(Self.href(ofID: "previous-page", in: second.text), second.text)
            XCTAssertTrue(previous.contains("before=") && !previous.contains("cursor="), previous)
            let back = try await Self.get(client, previous, session)
            XCTAssertEqual(Self.rowIDs(back.text), Self.rowIDs(first.text))
            XCTAssertTrue(back.text.contains("<p id=\"count\" class=\"muted\">1–1 of 2 submissions</p>"), back.text)
            XCTAssertFalse(back.text.contains("id=\"previous-page\""))
            XCTAssertTrue(back.text.contains("id=\"next-page\""))

            let bad = try await Self.get(client, "/submissions?from=someday", session)
            XCTAssertEqual(bad.status, .badRequest)
            XCTAssertTrue(bad.text.contains("`from`"), bad.text)
            XCTAssertTrue(bad.headers[.contentType]?.hasPrefix("text/html") ?? false)
        }
    }

    func testATechnicianListsOnlyTheirOwn() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            try await Self.uploadTwo(client)
            let session = try await client.officeSession("ana", fixture: fixture)
            for uri in ["/submissions", "/submissions?user=bob", "/submissions?q=valvula"] {
                let page = try await Self.get(client, uri, session)
                XCTAssertEqual(page.status, .ok, page.text)
                XCTAssertEqual(Self.rowIDs(page.text), uri.hasSuffix("valvula") ? [] : [ServerFixture.formID.description], uri)
                XCTAssertFalse(page.text.contains("<option value=\"bob\""), "bob is not offered to ana")
                XCTAssertFalse(page.text.contains("All technicians"))
            }
            let dashboard = try await Self.get(client, "/", session)
            XCTAssertEqual(dashboard.status, .ok)
            XCTAssertFalse(dashboard.text.contains(Self.bobFormID.description))
            XCTAssertTrue(dashboard.text.contains("1 in all"), dashboard.text)
        }
    }

    func testTheDashboardDrawsThirtyDaysAndTheTemplatesAsSVG() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            try await Self.uploadTwo(client)
            // A day later: both uploads fall on the second-to-last bar.
            fixture.clock.now = fixture.clock.now.addingTimeInterval(86_400)
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await Self.get(client, "/", session)
            XCTAssertEqual(page.status, .ok, page.text)
            let html = page.text
            XCTAssertTrue(html.contains("<a id=\"nav-dashboard\" href=\"/\" class=\"current\">"))
            XCTAssertEqual(html.components(separatedBy: "<g class=\"day\">").count - 1, 30)
            XCTAssertTrue(html.contains("<title>2026-03-02: 2 uploaded</title>"), html)
            XCTAssertTrue(html.contains("<title>2026-03-03: 0 uploaded</title>"))
            XCTAssertTrue(html.contains("<h2>Submissions per day uploaded</h2>"), "the chart says which day it counts by")
            XCTAssertTrue(html.contains("2026-02-02 – 2026-03-03"), "the period ends today")
            XCTAssertTrue(html.contains("<title>Centrifugal pump — monthly inspection (pump-inspection): 2</title>"), html)
            XCTAssertEqual(html.components(separatedBy: "<tr class=\"submission\">").count - 1, 2, "the newest submissions")
            XCTAssertTrue(html.contains("<a class=\"open\" href=\"/submissions/\(Self.bobFormID.description)\">pump-1</a>"))
            XCTAssertTrue(html.contains("pump-inspection · version 4"), "templates changed recently")
            XCTAssertFalse(html.contains("style="), "no inline style: the CSP forbids it")
            XCTAssertTrue(html.contains("<text class=\"label\" x=\"0\" y=\"12.0\">Centrifugal pump — monthly inspection</text>"),
                          "the title on its own line above its bar, whole")
            XCTAssertEqual(SVGChart.shortened(String(repeating: "x", count: 60)).count, SVGChart.labelCharacters,
                           "a longer one is shortened")
            XCTAssertTrue(html.contains("text-anchor=\"start\">02-02</text>") && html.contains("text-anchor=\"end\">03-03</text>"), html)
            // The tallest bar fills the chart; bars are drawn with presentation attributes only.
            XCTAssertTrue(html.contains("y=\"0.0\" width=\"18.0\" height=\"120.0\""), html)
        }
    }

    func testWithoutASessionBothPagesSendTheBrowserToSignIn() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            for uri in ["/", "/submissions?user=ana"] {
                let response = try await client.execute(uri: uri, method: .get) { $0 }
                XCTAssertEqual(response.status, .seeOther, uri)
                XCTAssertTrue(response.headers[.location]?.hasPrefix("/login?next=/") ?? false, "\(response.headers)")
            }
        }
    }
}

/// `SubmissionListPageTests` with mi-server on PostgreSQL: the submissions listing and the dashboard give the same results as on SQLite.
final class PostgresSubmissionListPageTests: SubmissionListPageTests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws { try await assertUploadsLandInTheEngine() }
}
