import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// Review states and send-backs through the real HTTP API (a live server on a loopback port):
/// a foreman changes the state and sends a form back with flagged questions, the technician
/// reads their own review and gets the form back in `GET /api/v1/returned`; every refusal is
/// one clear message with its status, and leaves the review as it was.
class ReviewAPITests: EngineTestCase {
    static let anasForm = ServerFixture.formID.description
    static let bobsForm = "0b0b0b0b-0000-4000-8000-00000000b0b0"

    /// Uploads ana's standard form and one of bob's; returns the foreman's token.
    static func uploadTwoForms(_ client: any TestClientProtocol) async throws -> String {
        let fiona = try await client.login("fiona")
        try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: fiona))
        let bobs = try ServerFixture.formData(id: try XCTUnwrap(FormID(Self.bobsForm)), user: "bob")
        try await assertStatus(.created, await client.upload(try ServerFixture.upload(formData: bobs), token: fiona))
        return fiona
    }

    func testAForemanSetsStatesAndTheHistoryKeepsEachChange() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await Self.uploadTwoForms(client)
            let fresh = try await client.review(Self.anasForm, token: fiona)
            XCTAssertEqual(fresh.reviewState, .received, "a submission nobody reviewed is received")
            XCTAssertEqual(fresh.history, [])
            XCTAssertEqual(fresh.flags, [])

            let approved = try await client.send("/api/v1/submissions/\(Self.anasForm)", .patch,
                                                 #"{"reviewState": "approved", "note": "  looks right  "}"#, token: fiona)
            XCTAssertEqual(approved.status, .ok, approved.text)
            let review = try approved.review()
            XCTAssertEqual(review.reviewState, .approved)
            XCTAssertEqual(review.history, [ReviewEvent(reviewState: .approved, by: "fiona", at: TestClock.start, note: "looks right")])

            let rejected = try await client.send("/api/v1/submissions/\(Self.anasForm.uppercased())", .patch,
                                                 #"{"reviewState": "rejected"}"#, token: fiona)
            XCTAssertEqual(rejected.status, .ok, rejected.text)
            let now = try await client.review(Self.anasForm, token: fiona)
            XCTAssertEqual(now.reviewState, .rejected)
            XCTAssertEqual(now.history.map(\.reviewState), [.approved, .rejected], "oldest first")
            XCTAssertNil(now.history.last?.note)
            let bobs = try await client.review(Self.bobsForm, token: fiona)
            XCTAssertEqual(bobs.reviewState, .received, "bob's form is untouched")
        }
        // The review is kept in the submissions' database: a restarted server has it.
        try await fixture.test { client in
            let fiona = try await client.login("fiona")
            let kept = try await client.review(Self.anasForm, token: fiona)
            XCTAssertEqual(kept.history.map(\.reviewState), [.approved, .rejected])
        }
    }

    func testSendBackFlagsQuestionsAndTheTechnicianGetsItBack() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await Self.uploadTwoForms(client)
            let body = #"{"note": "two readings to redo", "flags": [{"question": "pressure", "note": "gauge photo unreadable"}, {"question": "hours", "note": "counter shows 1200"}]}"#
            let sent = try await client.send("/api/v1/submissions/\(Self.anasForm)/send-back", .post, body, token: fiona)
            XCTAssertEqual(sent.status, .ok, sent.text)
            let flags = [ReviewFlag(question: "pressure", note: "gauge photo unreadable"), ReviewFlag(question: "hours", note: "counter shows 1200")]
            let review = try sent.review()
            XCTAssertEqual(review.reviewState, .hasIssues)
            XCTAssertEqual(review.flags, flags)
            XCTAssertEqual(review.sendBack, .init(version: 1, by: "fiona", at: TestClock.start, note: "two readings to redo"))
            XCTAssertEqual(review.history, [ReviewEvent(reviewState: .hasIssues, by: "fiona", at: TestClock.start, note: "two readings to redo")])

            let ana = try await client.login("ana")
            let own = try await client.review(Self.anasForm, token: ana)
            XCTAssertEqual(own.flags, flags, "the technician reads their own review")
            let returned = try await client.returned(token: ana)
            XCTAssertEqual(returned, [SentBackForm(id: ServerFixture.formID, version: 1, formName: "pump-1", templateID: "pump-inspection",
                                                   by: "fiona", at: TestClock.start, note: "two readings to redo", flags: flags)])
            let bob = try await client.login("bob")
            let bobsReturned = try await client.returned(token: bob)
            XCTAssertEqual(bobsReturned, [], "bob's forms were not sent back")
            let ignoringUser = try await client.returned(token: bob, query: "?user=ana")
            XCTAssertEqual(ignoringUser, [], "a technician's ?user= is ignored")
            let everyone = try await client.returned(token: fiona)
            XCTAssertEqual(everyone.map(\.id.description), [Self.anasForm], "a foreman gets every one")
            let bobsOnly = try await client.returned(token: fiona, query: "?user=bob")
            XCTAssertEqual(bobsOnly, [])
            let anasOnly = try await client.returned(token: fiona, query: "?user=ana")
            XCTAssertEqual(anasOnly.map(\.id.description), [Self.anasForm])

            // A note alone sends back too, and replaces the open send-back.
            let noteOnly = try await client.send("/api/v1/submissions/\(Self.anasForm)/send-back", .post,
                                                 #"{"note": "sign the form", "flags": []}"#, token: fiona)
            XCTAssertEqual(noteOnly.status, .ok, noteOnly.text)
            let replaced = try await client.returned(token: ana)
            XCTAssertEqual(replaced.map(\.note), ["sign the form"])
            XCTAssertEqual(replaced.first?.flags, [])

            // Settling the review otherwise closes the send-back: the form is no longer returned.
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.anasForm)", .patch,
                                                           #"{"reviewState": "approved"}"#, token: fiona))
            let afterApproval = try await client.returned(token: ana)
            XCTAssertEqual(afterApproval, [])
            let settled = try await client.review(Self.anasForm, token: ana)
            XCTAssertEqual(settled.flags, [])
            XCTAssertNil(settled.sendBack)
            XCTAssertEqual(settled.history.map(\.reviewState), [.hasIssues, .hasIssues, .approved])
        }
    }

    func testRefusalsAreClearAndChangeNothing() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await Self.uploadTwoForms(client)
            let patch = "/api/v1/submissions/\(Self.anasForm)"
            let sendBack = patch + "/send-back"
            let cases: [(String, HTTPRequest.Method, String, HTTPResponse.Status, String)] = [
                (patch, .patch, #"{"reviewState": "edited"}"#, .unprocessableContent, "set by the server only"),
                (patch, .patch, #"{"reviewState": "done"}"#, .unprocessableContent, "\"done\" is not a review state"),
                (patch, .patch, #"{"state": "approved"}"#, .badRequest, "the body must be JSON {\"reviewState\""),
                (patch, .patch, #"not json"#, .badRequest, "the body must be JSON"),
                (patch, .patch, #"{"reviewState": "approved", "note": 5}"#, .badRequest, "\"note\" must be text"),
                (patch, .patch, #"{"reviewState": "approved", "note": "\#(String(repeating: "x", count: 4001))"}"#,
                 .unprocessableContent, "at most 4000"),
                ("/api/v1/submissions/\(UUID().uuidString)", .patch, #"{"reviewState": "approved"}"#, .notFound, "no submission"),
                ("/api/v1/submissions/not-a-uuid", .patch, #"{"reviewState": "approved"}"#, .notFound, "no submission"),
                (sendBack, .post, #"{"flags": [{"question": "pumps[2]/amps", "note": "?"}]}"#, .unprocessableContent,
                 "\"pumps[2]/amps\" is not a question of form pump-1"),
                (sendBack, .post, #"{"flags": [{"question": "pressure", "note": "a"}, {"question": "hours", "note": "b"}, {"question": "nosuch", "note": "c"}]}"#,
                 .unprocessableContent, "\"nosuch\" is not a question"),
                (sendBack, .post, #"{"flags": [{"question": "pressure", "note": "a"}, {"question": "pressure", "note": "b"}]}"#,
                 .unprocessableContent, "flagged twice"),
                (sendBack, .post, #"{"note": "   ", "flags": []}"#, .unprocessableContent, "at least one flagged question or a note"),
                (sendBack, .post, #"{"note": "x"}"#, .badRequest, "the body must be JSON"),
                (sendBack, .post, #"[]"#, .badRequest, "the body must be JSON"),
                ("/api/v1/submissions/\(UUID().uuidString)/send-back", .post, #"{"note": "x", "flags": []}"#, .notFound, "no submission"),
            ]
            for (uri, method, body, status, message) in cases {
                let response = try await client.send(uri, method, body, token: fiona)
                XCTAssertEqual(response.status, status, "\(method) \(body.prefix(80)): \(response.text)")
                XCTAssertTrue(response.errorMessage?.contains(message) ?? false, "\(body.prefix(80)): \(response.text)")
            }
            let review = try await client.review(Self.anasForm, token: fiona)
            XCTAssertEqual(review.reviewState, .received, "no refusal changed the state")
            XCTAssertEqual(review.history, [])
            let noneReturned = try await client.returned(token: fiona)
            XCTAssertEqual(noneReturned, [])
            let noToken = try await client.execute(uri: "/api/v1/returned", method: .get) { $0 }
            XCTAssertEqual(noToken.status, .unauthorized)
        }
    }

    func testATechnicianCannotChangeFlagOrReadAnothersReview() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await Self.uploadTwoForms(client)
            let ana = try await client.login("ana")
            for (uri, method, body) in [
                ("/api/v1/submissions/\(Self.anasForm)", HTTPRequest.Method.patch, #"{"reviewState": "approved"}"#),
                ("/api/v1/submissions/\(Self.anasForm)/send-back", .post, #"{"note": "x", "flags": [{"question": "pressure", "note": "x"}]}"#),
                ("/api/v1/submissions/\(Self.bobsForm)", .patch, #"{"reviewState": "rejected"}"#),
                ("/api/v1/submissions/\(Self.bobsForm)/send-back", .post, #"{"note": "x", "flags": []}"#),
            ] {
                let response = try await client.send(uri, method, body, token: ana)
                XCTAssertEqual(response.status, .forbidden, "\(method) \(uri): \(response.text)")
                XCTAssertTrue(response.errorMessage?.contains("only a foreman may") ?? false, response.text)
            }
            let others = try await client.get("/api/v1/submissions/\(Self.bobsForm)/review", token: ana)
            XCTAssertEqual(others.status, .forbidden, others.text)
            XCTAssertTrue(others.errorMessage?.contains("another technician's form") ?? false, others.text)
            let unknown = try await client.get("/api/v1/submissions/\(UUID().uuidString)/review", token: ana)
            XCTAssertEqual(unknown.status, .notFound, unknown.text)
            for id in [Self.anasForm, Self.bobsForm] {
                let review = try await client.review(id, token: fiona)
                XCTAssertEqual(review.reviewState, .received, id)
                XCTAssertEqual(review.history, [], id)
            }
        }
    }

    /// The office's panel: foremen see the state, its history and the two forms (each with the
    /// CSRF token); what they post changes the review as the API does; a post without the token
    /// is refused; technicians see the state and no controls.
    func testTheOfficePanelChangesTheStateAndSendsBackWithCSRF() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await Self.uploadTwoForms(client)
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let page = try await client.officePage("/submissions/\(Self.anasForm)", fiona)
            XCTAssertTrue(page.contains("<span id=\"review-state\" class=\"badge review-received\">Received</span>"), page)
            XCTAssertTrue(page.contains("<form id=\"review-change\" method=\"post\" action=\"/submissions/\(Self.anasForm)/review\">\n      <input type=\"hidden\" name=\"_csrf\" value=\"\(fiona.csrf)\">"), page)
            XCTAssertTrue(page.contains("<form id=\"send-back\" method=\"post\" action=\"/submissions/\(Self.anasForm)/send-back\">\n      <input type=\"hidden\" name=\"_csrf\" value=\"\(fiona.csrf)\">"), page)
            XCTAssertTrue(page.contains("name=\"flag:pressure\""), page)
            XCTAssertTrue(page.contains("name=\"note:pressure\""), page)

            let noToken = try await client.officePost("/submissions/\(Self.anasForm)/review", "reviewState=approved&note=fine", fiona, withCSRF: false)
            XCTAssertEqual(noToken.status, .forbidden, noToken.text)
            let changed = try await client.officePost("/submissions/\(Self.anasForm)/review", "reviewState=approved&note=all+good", fiona)
            XCTAssertEqual(changed.status, .seeOther, changed.text)
            XCTAssertEqual(changed.headers[.location], "/submissions/\(Self.anasForm)#review")
            let after = try await client.officePage("/submissions/\(Self.anasForm)", fiona)
            XCTAssertTrue(after.contains("badge review-approved\">Approved</span>"), after)
            XCTAssertTrue(after.contains("· fiona · Approved — <span class=\"review-note\">all good</span>"), after)

            let fields = ["flag:pressure=on", "note:pressure=" + ReviewAPITests.encode("re-read the gauge"), "flag:hours=on",
                          "note:hours=", "note:notes=ignored+without+its+tick", "note=" + ReviewAPITests.encode("two to fix")]
            let sent = try await client.officePost("/submissions/\(Self.anasForm)/send-back", fields.joined(separator: "&"), fiona)
            XCTAssertEqual(sent.status, .seeOther, sent.text)
            let api = try await client.login("fiona")
            let review = try await client.review(Self.anasForm, token: api)
            XCTAssertEqual(review.reviewState, .hasIssues)
            XCTAssertEqual(review.flags, [ReviewFlag(question: "hours", note: ""), ReviewFlag(question: "pressure", note: "re-read the gauge")])
            XCTAssertEqual(review.sendBack?.note, "two to fix")
            let flagged = try await client.officePage("/submissions/\(Self.anasForm)", fiona)
            XCTAssertTrue(flagged.contains("<li data-question=\"pressure\"><code>pressure</code> — re-read the gauge</li>"), flagged)
            XCTAssertTrue(flagged.contains("name=\"flag:pressure\" checked"), "the open flags stay ticked: \(flagged)")

            let bad = try await client.officePost("/submissions/\(Self.anasForm)/send-back", "flag:nosuch=on&note=x", fiona)
            XCTAssertEqual(bad.status, .unprocessableContent, bad.text)
            XCTAssertTrue(bad.text.contains("is not a question of form pump-1"), bad.text)

            let ana = try await client.officeSession("ana", fixture: fixture)
            let own = try await client.officePage("/submissions/\(Self.anasForm)", ana)
            XCTAssertTrue(own.contains("badge review-hasIssues\">Has issues</span>"), own)
            XCTAssertTrue(own.contains("re-read the gauge"), "the technician reads the flags: \(own)")
            XCTAssertFalse(own.contains("id=\"review-change\""), "no controls for a technician")
            XCTAssertFalse(own.contains("id=\"send-back\""), "no controls for a technician")
            let refused = try await client.officePost("/submissions/\(Self.anasForm)/review", "reviewState=approved", ana)
            XCTAssertEqual(refused.status, .forbidden, refused.text)
            let unchanged = try await client.review(Self.anasForm, token: api)
            XCTAssertEqual(unchanged.reviewState, .hasIssues)
        }
    }

    func testTheStateIsListedFilteredCountedAndExported() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await Self.uploadTwoForms(client)
            let approved = try await client.send("/api/v1/submissions/\(Self.anasForm)", .patch, #"{"reviewState": "approved"}"#, token: fiona)
            XCTAssertEqual(approved.status, .ok, approved.text)
            let sent = try await client.send("/api/v1/submissions/\(Self.bobsForm)/send-back", .post,
                                             #"{"note": "redo", "flags": [{"question": "pressure", "note": "again"}]}"#, token: fiona)
            XCTAssertEqual(sent.status, .ok, sent.text)

            // The listing says each one's state and filters by it.
            func listed(_ query: String) async throws -> [(id: String, state: String)] {
                let response = try await client.get("/api/v1/submissions\(query)", token: fiona)
                XCTAssertEqual(response.status, .ok, response.text)
                let rows = try XCTUnwrap((response.json as? [String: Any])?["submissions"] as? [[String: Any]], response.text)
                return rows.map { ($0["id"] as? String ?? "", $0["reviewState"] as? String ?? "") }
            }
            let everything = try await listed(""), onlyApproved = try await listed("?reviewState=approved")
            let withIssues = try await listed("?reviewState=hasIssues"), rejected = try await listed("?reviewState=rejected")
            XCTAssertEqual(Set(everything.map { "\($0.id) \($0.state)" }), ["\(Self.anasForm) approved", "\(Self.bobsForm) hasIssues"])
            XCTAssertEqual(onlyApproved.map(\.id), [Self.anasForm])
            XCTAssertEqual(withIssues.map(\.id), [Self.bobsForm])
            XCTAssertEqual(rejected.map(\.id), [])
            let bad = try await client.get("/api/v1/submissions?reviewState=done", token: fiona)
            XCTAssertEqual(bad.status, .badRequest, bad.text)
            XCTAssertTrue(bad.errorMessage?.contains("parameter `reviewState` is \"done\"") ?? false, bad.text)

            // Statistics and exports take the same filter; the CSV ends with the state.
            let stats = try await client.get("/api/v1/templates/pump-inspection/stats?reviewState=approved", token: fiona)
            XCTAssertEqual(stats.status, .ok, stats.text)
            XCTAssertEqual((stats.json as? [String: Any])?["forms"] as? Int, 1, stats.text)
            let badStats = try await client.get("/api/v1/templates/pump-inspection/stats?reviewState=done", token: fiona)
            XCTAssertEqual(badStats.status, .badRequest, badStats.text)
            let whole = try await client.get(ExportAPITests.path, token: fiona)
            let all = try ExportAPITests.records(try XCTUnwrap(try ExportAPITests.archive(whole).entry("pump-inspection.csv")).data)
            let header = try XCTUnwrap(all.first)
            XCTAssertEqual(header.last, "ReviewState")
            let key = try XCTUnwrap(header.firstIndex(of: "KEY"))
            XCTAssertEqual(Set(all.dropFirst().map { "\($0[key]) \($0.last ?? "")" }),
                           ["\(Self.anasForm) approved", "\(Self.bobsForm) hasIssues"])
            let filtered = try await client.get(ExportAPITests.path + "?reviewState=approved", token: fiona)
            let approvedRows = try ExportAPITests.records(try XCTUnwrap(try ExportAPITests.archive(filtered).entry("pump-inspection.csv")).data)
            XCTAssertEqual(approvedRows.dropFirst().map { $0[key] }, [Self.anasForm])
        }
        // The office: the listing's filter and badges, the dashboard's counts linking to it.
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let approvedPage = try await client.officePage("/submissions?reviewState=approved", fiona)
            XCTAssertTrue(approvedPage.contains("href=\"/submissions/\(Self.anasForm)\""), approvedPage)
            XCTAssertFalse(approvedPage.contains("href=\"/submissions/\(Self.bobsForm)\""), approvedPage)
            XCTAssertTrue(approvedPage.contains("<option value=\"approved\" selected>Approved</option>"), approvedPage)
            XCTAssertTrue(approvedPage.contains("<span class=\"badge review-approved\">Approved</span>"), approvedPage)
            let dashboard = try await client.officePage("/", fiona)
            XCTAssertTrue(dashboard.contains("<a class=\"review-count\" data-state=\"hasIssues\" href=\"/submissions?reviewState=hasIssues\"><span class=\"badge review-hasIssues\">Has issues</span> <strong>1</strong></a>"), dashboard)
            XCTAssertTrue(dashboard.contains("data-state=\"approved\" href=\"/submissions?reviewState=approved\"><span class=\"badge review-approved\">Approved</span> <strong>1</strong>"), dashboard)
            XCTAssertTrue(dashboard.contains("data-state=\"rejected\" href=\"/submissions?reviewState=rejected\"><span class=\"badge review-rejected\">Rejected</span> <strong>0</strong>"), dashboard)
            let stats = try await client.officePage("/templates/pump-inspection/stats?reviewState=hasIssues", fiona)
            XCTAssertTrue(stats.contains("<option value=\"hasIssues\" selected>Has issues</option>"), stats)
            XCTAssertTrue(stats.contains("export.zip?reviewState=hasIssues"), "the export link keeps the filter: \(stats)")
        }
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

final class PostgresReviewAPITests: ReviewAPITests {
    override class var engine: RepositoryEngine { .postgres }

    func testTheReviewTablesAreInThePostgreSQLDatabase() async throws {
        try await assertUploadsLandInTheEngine()
        let fixture = try makeFixture()
        try await fixture.test { client in
            let fiona = try await Self.uploadTwoForms(client)
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.anasForm)/send-back", .post,
                                                           #"{"flags": [{"question": "pressure", "note": "x"}]}"#, token: fiona))
        }
        guard case .postgres(let location) = fixture.configuration.server.database else { return XCTFail("not PostgreSQL") }
        let server = try SharedPostgres.server()
        XCTAssertEqual(try server.psql("SELECT state FROM review_event", database: location.database), "hasIssues\n")
        XCTAssertEqual(try server.psql("SELECT flags->0->>'question' FROM send_back WHERE open", database: location.database), "pressure\n")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM mi_migration WHERE name LIKE 'review-%'", database: location.database), "1\n")
    }
}

// MARK: - Requests

extension TestClientProtocol {
    func send(_ uri: String, _ method: HTTPRequest.Method, _ body: String, token: String) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                          body: ByteBuffer(string: body)) { $0 }
    }

    func review(_ id: String, token: String) async throws -> SubmissionReview {
        let response = try await get("/api/v1/submissions/\(id)/review", token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.review()
    }

    func returned(token: String, query: String = "") async throws -> [SentBackForm] {
        let response = try await get("/api/v1/returned" + query, token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try WireJSON.decoder().decode([SentBackForm].self, from: Data(buffer: response.body))
    }

    func officePage(_ uri: String, _ session: OfficeBrowserSession) async throws -> String {
        let response = try await execute(uri: uri, method: .get, headers: [.cookie: session.cookieHeader, .accept: "text/html"]) { $0 }
        XCTAssertEqual(response.status, .ok, response.text)
        return response.text
    }

    /// A urlencoded office form as the browser posts it, with the `_csrf` field unless told otherwise.
    func officePost(_ uri: String, _ fields: String, _ session: OfficeBrowserSession, withCSRF: Bool = true) async throws -> TestResponse {
        let body = withCSRF ? fields + "&_csrf=" + ReviewAPITests.encode(session.csrf) : fields
        return try await execute(uri: uri, method: .post,
                                 headers: [.cookie: session.cookieHeader, .contentType: "application/x-www-form-urlencoded",
                                           .accept: "text/html"],
                                 body: ByteBuffer(string: body)) { $0 }
    }
}

extension TestResponse {
    func review() throws -> SubmissionReview {
        try WireJSON.decoder().decode(SubmissionReview.self, from: Data(buffer: body))
    }
}
