import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `/submissions/{id}`: the uploaded form as the office reads it, its downloads, and who may see it.
class SubmissionPageTests: EngineTestCase {
    static let hostile = "<img src=x onerror=alert(1)> and <script>alert(2)</script>"

    func testTheForemanSeesEveryAnswerCommentAndMediaAsText() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: try ServerFixture.formData(note: Self.hostile)), token: token))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let id = ServerFixture.formID.description
            let page = try await client.execute(uri: "/submissions/\(id)", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(page.status, .ok, page.text)
            let html = page.text
            XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)&lt;/script&gt;"), html)
            XCTAssertFalse(html.contains("<img src=x"), "an answer is never markup")
            XCTAssertFalse(html.contains("<script>alert"), "an answer is never markup")
            XCTAssertTrue(html.contains("<dd class=\"technician\">ana</dd>"), "a form without a display name shows the user name")
            XCTAssertTrue(html.contains("version 4"))
            XCTAssertTrue(html.contains("motor not measured"), "the comment")
            // The table: the sample's motor vibration cell takes no value.
            XCTAssertEqual(html.components(separatedBy: "class=\"no-value\"").count - 1, 1, html)
            XCTAssertTrue(html.contains("<img class=\"photo\" src=\"/api/v1/submissions/\(id)/media/Qid0%281%29.jpg\""), html)
            XCTAssertTrue(html.contains("<video class=\"media-video\" src=\"/api/v1/submissions/\(id)/media/Qid6%281%29.mp4\" controls preload=\"metadata\">"), html)
            XCTAssertTrue(html.contains("id=\"audit\""))
            // The page's links work with the office cookie alone, percent-encoded as they are.
            let photo = try await client.execute(uri: "/api/v1/submissions/\(id)/media/Qid0%281%29.jpg", method: .get,
                                                 headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(photo.status, .ok, photo.text)
            XCTAssertEqual(Data(buffer: photo.body), ServerFixture.media["Qid0(1).jpg"])
            XCTAssertTrue(html.contains("uploaded by fiona") || html.contains("by fiona"))
            // The history ends with the upload as the server recorded it (the client writes none).
            XCTAssertTrue(html.contains("</span> uploaded by fiona</li>"), html)

            let form = try await client.execute(uri: "/submissions/\(id)/form.json", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(form.status, .ok)
            XCTAssertEqual(Data(buffer: form.body), try Data(contentsOf: fixture.layout.submission(try XCTUnwrap(FormID(id))).appendingPathComponent("form.json")),
                           "form.json exactly as stored")
            XCTAssertEqual(form.headers[.contentDisposition], "attachment; filename=\"pump-1-form.json\"; filename*=UTF-8''pump-1-form.json")

            let pdf = try await client.execute(uri: "/submissions/\(id)/report.pdf", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(pdf.status, .ok, pdf.text)
            XCTAssertEqual(pdf.headers[.contentType], "application/pdf")
            XCTAssertTrue(Data(buffer: pdf.body).starts(with: Data("%PDF".utf8)))
            let leftovers = fixture.layout.uploadsBeingReceived
            XCTAssertEqual(leftovers, [], "the PDF's temporary file is removed")
        }
    }

    /// An option with a name and a label: the form stores the name, the page shows the label.
    func testChoicesShowTheirLabels() async throws {
        let fixture = try makeFixture()
        var form = try FormFile.decode(try ServerFixture.formData(media: []))
        let index = try XCTUnwrap(form.template.index(of: "leaks"))
        form.template.questions[index].kind = Question.Kind(MultipleChoiceQuestion(choices: [
            .init(name: "none", label: "No leak"), .init(name: "seal", label: "Mechanical seal"), .init("Suction flange"),
        ], maxAnswers: 0))
        form.answers["leaks"] = Answer(value: .choices(["seal", "Suction flange"]))
        let formData = try FormFile.encode(form)
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: formData, media: [:]), token: token))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await client.execute(uri: "/submissions/\(ServerFixture.formID.description)", method: .get,
                                                headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(page.status, .ok, page.text)
            XCTAssertTrue(page.text.contains("<li class=\"chosen\">Mechanical seal</li>"), page.text)
            XCTAssertTrue(page.text.contains("<li class=\"chosen\">Suction flange</li>"), page.text)
            XCTAssertTrue(page.text.contains("<li class=\"not-chosen\">No leak</li>"), page.text)
            XCTAssertFalse(page.text.contains(">seal<"), "the name is not what the office reads")
        }
    }

    func testATechnicianOpensTheirOwnSubmissionButNotAnothers() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(), token: token))
            let bobs = FormID()
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: try ServerFixture.formData(id: bobs, user: "bob")), token: token))
            let ana = try await client.officeSession("ana", fixture: fixture)
            let own = ServerFixture.formID.description
            for path in ["", "/form.json"] {
                let mine = try await client.execute(uri: "/submissions/\(own)\(path)", method: .get, headers: [.cookie: ana.cookieHeader]) { $0 }
                XCTAssertEqual(mine.status, .ok, path)
                let other = try await client.execute(uri: "/submissions/\(bobs.description)\(path)", method: .get,
                                                     headers: [.cookie: ana.cookieHeader, .accept: "text/html"]) { $0 }
                XCTAssertEqual(other.status, .forbidden, path)
                if path.isEmpty {
                    XCTAssertTrue(other.text.contains("id=\"sign-out\""), "the error page keeps the signed-in navigation: \(other.text)")
                }
                XCTAssertFalse(other.text.contains("motor not measured"), "nothing of bob's form shows")
            }
            let unknown = try await client.execute(uri: "/submissions/\(UUID().uuidString)", method: .get, headers: [.cookie: ana.cookieHeader]) { $0 }
            XCTAssertEqual(unknown.status, .notFound)
            let malformed = try await client.execute(uri: "/submissions/..%2F..%2Fsigning.key", method: .get, headers: [.cookie: ana.cookieHeader]) { $0 }
            XCTAssertEqual(malformed.status, .notFound)
        }
    }

    func testWithoutASessionThePageSendsTheBrowserToSignInAndBack() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let id = ServerFixture.formID.description
            let response = try await client.execute(uri: "/submissions/\(id)?from=2026-01-01", method: .get) { $0 }
            XCTAssertEqual(response.status, .seeOther)
            XCTAssertEqual(response.headers[.location], "/login?next=/submissions/\(id)%3Ffrom%3D2026-01-01")
            let expired = try await client.execute(uri: "/submissions/\(id)", method: .get, headers: [.cookie: "mi_office=forged.token"]) { $0 }
            XCTAssertEqual(expired.status, .seeOther)
        }
    }

    func testASimulatedFormCarriesTheSimulatedBadgeAndARealOneDoesNot() async throws {
        let fixture = try makeFixture([.set("Server.AcceptSimulated", true)])
        let realID = FormID()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: try ServerFixture.formData(simulated: true)), token: token))
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: try ServerFixture.formData(id: realID)), token: token))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let simulated = try await client.execute(uri: "/submissions/\(ServerFixture.formID.description)", method: .get,
                                                     headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(simulated.status, .ok, simulated.text)
            XCTAssertTrue(simulated.text.contains("<span class=\"badge simulated\""), simulated.text)
            XCTAssertTrue(simulated.text.contains("answers simulated (mi simulate) by ana"), "the audit trail says so too")
            let real = try await client.execute(uri: "/submissions/\(realID.description)", method: .get,
                                                headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(real.status, .ok, real.text)
            XCTAssertFalse(real.text.contains("badge simulated"), real.text)
            // The listing marks the simulated row only, and the API says which is which.
            let simulatedID = ServerFixture.formID.description, real2 = realID.description
            let listing = try await client.execute(uri: "/submissions", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(listing.status, .ok, listing.text)
            let rows = listing.text.components(separatedBy: "<tr class=\"submission\"").dropFirst()
            XCTAssertEqual(rows.count, 2, listing.text)
            for row in rows {
                XCTAssertEqual(row.contains("class=\"badge simulated\""), row.contains("data-id=\"\(simulatedID)\""), row)
            }
            let page = try await client.get("/api/v1/submissions", token: token)
            let decoded = try WireJSON.decoder().decode(SubmissionPage.self, from: Data(buffer: page.body))
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: decoded.submissions.map { ($0.id.description, $0.simulated) }),
                           [simulatedID: true, real2: false])
        }
    }

    /// A withdrawn answer is in the history the office shows, in the words `mi review` uses.
    func testAWithdrawnAnswerIsInTheHistory() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let data = try ServerFixture.formData(cleared: ["pressure", "hours"])
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(formData: data), token: token))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await client.execute(uri: "/submissions/\(ServerFixture.formID.description)", method: .get,
                                                headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(page.status, .ok, page.text)
            XCTAssertTrue(page.text.contains("cleared the answer to pressure, hours by ana"), page.text)
        }
    }

    func testADownloadNameCannotBreakTheHeader() {
        XCTAssertEqual(ContentDisposition.attachment("bomba \"7\"\r\nX: y ñ.pdf"),
                       "attachment; filename=\"bomba _7___X: y _.pdf\"; filename*=UTF-8''bomba%20%227%22%0D%0AX%3A%20y%20%C3%B1.pdf")
    }
}

/// The Consent and Scores sections of `/submissions/{id}`.
final class SubmissionPageClinicalTests: XCTestCase {
    func testConsentAndScoresOfAnUploadedIPAQForm() async throws {
        let fixture = try ScoreRecomputationTests.fixture()
        var form = try ScoreRecomputationTests.ipaqForm(try XCTUnwrap(IPAQCases.all.first))
        form.consent?.by = "ana <b>"
        let formData = try FormFile.encode(form)
        let sheet = try XCTUnwrap(form.scores)
        let digest = try XCTUnwrap(form.template.consentDigest)
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, try await client.upload(try ScoreRecomputationTests.upload(formData), token: token))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let id = ScoreRecomputationTests.ipaqFormID.description
            let page = try await client.execute(uri: "/submissions/\(id)", method: .get, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(page.status, .ok, page.text)
            let html = page.text
            XCTAssertTrue(html.contains("<section id=\"consent\""), html)
            XCTAssertTrue(html.contains("Consentimiento informado para participar en el estudio."), html)
            XCTAssertTrue(html.contains("<dd class=\"consent-by\">ana &lt;b&gt;</dd>"), html)
            XCTAssertTrue(html.contains("<dd class=\"consent-at\">2026-03-02 09:00 UTC</dd>"), html)
            XCTAssertTrue(html.contains("<code class=\"consent-sha256\">\(digest)</code>"), html)
            XCTAssertFalse(html.contains("not the digest of this text"), html)
            XCTAssertTrue(html.contains("<section id=\"scores\""), html)
            XCTAssertTrue(html.contains("(ipaq-short)"), html)
            for entry in sheet.values {
                XCTAssertTrue(html.contains("<tr><th>\(entry.key)</th><td class=\"number\">\(entry.value.display)</td></tr>"), entry.key)
            }
            if let note = sheet.note { XCTAssertTrue(html.contains(note), html) }

            // A template without a scorer or consent has neither section.
            try await assertStatus(.created, try await client.upload(try ServerFixture.upload(), token: token))
            let pump = try await client.execute(uri: "/submissions/\(ServerFixture.formID.description)", method: .get,
                                                headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertFalse(pump.text.contains("id=\"consent\""))
            XCTAssertFalse(pump.text.contains("id=\"scores\""))
        }
    }

    /// Items, values and the note as the view draws them, from a sheet built here (the
    /// scorers' own figures are their tests' business).
    func testScoresSectionDrawsValuesItemsAndNote() throws {
        let template = try TemplateFixture.sample("mmse")
        var form = Form(id: FormID(), name: "mmse-1", user: "ana", template: template, createdAt: TestClock.start)
        form.status = .completed
        let receipt = Receipt(id: form.id, user: "ana", formName: form.name, uploadedBy: "fiona",
                              receivedAt: TestClock.start, parts: [])
        let sheet = ScoreSheet(scoring: .mmse, values: [ScoreEntry("mmse.automatic", .number(9)), ScoreEntry("mmse.automaticMax", .number(11))],
                               items: [ScoreItem(question: "concentrationQuestionTwo", result: .incorrect, points: 0, maxPoints: 1, expected: "86"),
                                       ScoreItem(question: "watchImageQuestion", result: .correct, points: 1, maxPoints: 1),
                                       ScoreItem(question: "memoryQuestion", result: .examiner, points: nil, maxPoints: 3)],
                               note: "Not a full 30-point MMSE <really>.")
        var values = SubmissionPageController.values(form, receipt: receipt)
        values["scores"] = SubmissionPageController.scores(sheet, template: template)
        let html = try XCTUnwrap(try OfficeViews().library.render(values, withTemplate: "submission"))
        XCTAssertTrue(html.contains("<tr><th>mmse.automatic</th><td class=\"number\">9</td></tr>"), html)
        XCTAssertTrue(html.contains("<tr><th>mmse.automaticMax</th><td class=\"number\">11</td></tr>"), html)
        let two = try XCTUnwrap(template.questions.firstIndex { $0.id == "concentrationQuestionTwo" }) + 1
        XCTAssertTrue(html.contains("<tr class=\"score-incorrect\" data-question-id=\"concentrationQuestionTwo\">"), html)
        XCTAssertTrue(html.contains("<span class=\"number\">\(two).</span> concentrationQuestionTwo</td><td>incorrect, 0/1 (expected 86)</td><td class=\"number\">0/1</td>"), html)
        XCTAssertTrue(html.contains("<td>correct, 1/1</td>"), html)
        XCTAssertTrue(html.contains("<td>needs an examiner</td><td class=\"number\">—</td>"), html)
        XCTAssertTrue(html.contains("<p class=\"score-note muted\">Not a full 30-point MMSE &lt;really&gt;.</p>"), html)
        // Without an acceptance the consent says so.
        XCTAssertTrue(html.contains("<p class=\"error consent-missing\">not accepted</p>"), html)
    }
}

/// `SubmissionPageTests` with mi-server on PostgreSQL: the submission page give the same results as on SQLite.
final class PostgresSubmissionPageTests: SubmissionPageTests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws { try await assertUploadsLandInTheEngine() }
}
