import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// Versions in `Server.TemplatesDirectory`, and the office's check, publish, upload and download.
final class TemplatePublishingTests: XCTestCase {
    private static let draft = #"{"id": "pump-inspection", "title": "Pump, reworked", "questions": [{"id": "ok", "type": "trueFalse", "text": "Ok?"}]}"#

    /// A POST as editor.js makes it: the session cookie and the CSRF token in its header.
    private static func post(_ client: any TestClientProtocol, _ path: String, json: String,
                             session: OfficeBrowserSession) async throws -> TestResponse {
        try await client.execute(uri: path, method: .post,
                                 headers: [.cookie: session.cookieHeader, CSRFMiddleware.header: session.csrf,
                                           .contentType: "application/json"],
                                 body: ByteBuffer(string: json)) { $0 }
    }

    /// The upload form as a browser posts it: multipart, the CSRF token in its `_csrf` field.
    private static func upload(_ client: any TestClientProtocol, _ data: Data, filename: String,
                               session: OfficeBrowserSession) async throws -> TestResponse {
        var body = MultipartBody()
        body.parts.append(.init(name: "_csrf", filename: nil, contentType: nil, data: Data(session.csrf.utf8)))
        body.parts.append(.init(name: "template", filename: filename, contentType: "application/json", data: data))
        return try await client.execute(uri: "/templates/upload", method: .post,
                                        headers: [.cookie: session.cookieHeader, .contentType: body.contentType, .accept: "text/html"],
                                        body: ByteBuffer(bytes: body.data)) { $0 }
    }

    private static func get(_ client: any TestClientProtocol, _ path: String, session: OfficeBrowserSession) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: [.cookie: session.cookieHeader, .accept: "text/html"]) { $0 }
    }

    // MARK: - Versions in the folder

    func testNewestVersionIsServedAndOlderOnesAreKept() async throws {
        let fixture = try ServerFixture()
        let newer = TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Ok?"}"#], id: "pump-inspection", version: "5")
        try Files.write(newer, to: fixture.templates.appendingPathComponent("a-newer.json"))
        try await fixture.test { client in
            let token = try await client.login("ana")
            let templates = try await TemplateTests.list(client, token: token)
            XCTAssertEqual(templates.count, 1)
            XCTAssertEqual(templates.first?["version"] as? Int, 5)
            let served = try await client.get("/api/v1/templates/pump-inspection", token: token)
            XCTAssertEqual(Data(buffer: served.body), newer)
            let ana = try await client.officeSession("ana", fixture: fixture)
            let older = try await Self.get(client, "/templates/pump-inspection/versions/4", session: ana)
            XCTAssertEqual(older.status, .ok)
            XCTAssertEqual(Data(buffer: older.body), Data(TemplateFixture.sampleJSON.utf8))
            XCTAssertEqual(older.headers[.contentDisposition], "attachment; filename=\"pump-inspection.json\"; filename*=UTF-8''pump-inspection.json")
            try await assertStatus(.notFound, await Self.get(client, "/templates/pump-inspection/versions/3", session: ana))
            try await assertStatus(.notFound, await Self.get(client, "/templates/pump-inspection/versions/x", session: ana))
            // The page lists both versions with their downloads.
            let page = try await Self.get(client, "/templates", session: ana)
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains("id=\"templates\""), page.text)
            XCTAssertTrue(page.text.contains("href=\"/templates/pump-inspection/versions/5\""), page.text)
            XCTAssertTrue(page.text.contains("href=\"/templates/pump-inspection/versions/4\""), page.text)
            XCTAssertFalse(page.text.contains("id=\"upload\""), "a technician is not offered the upload")
            XCTAssertFalse(page.text.contains("id=\"published\""), "no notice without a publish")
            XCTAssertFalse(page.text.contains("nil"), page.text)
            XCTAssertFalse(page.text.contains("/templates/pump-inspection/edit"), "nor the editor")
        }
        let catalog = TemplateCatalog(folder: fixture.templates, keys: .default, logger: fixture.logs.logger())
        XCTAssertEqual(catalog.versions(id: "pump-inspection").map(\.version), [5, 4])
        XCTAssertEqual(catalog.allVersions().map(\.fileName), ["pump-inspection.json", "a-newer.json"])
    }

    func testTheSameVersionTwiceIsAnErrorNamingBothFiles() async throws {
        let fixture = try ServerFixture()
        try Files.write(TemplateFixture.sampleJSON, to: fixture.templates.appendingPathComponent("copy.json"))
        let catalog = TemplateCatalog(folder: fixture.templates, keys: .default, logger: fixture.logs.logger())
        XCTAssertEqual(catalog.allVersions().map(\.fileName), ["copy.json"])
        let errors = fixture.logs.messages.filter { $0.hasPrefix("error") }
        XCTAssertTrue(errors.contains { $0.contains("pump-inspection.json") && $0.contains("version 4") && $0.contains("copy.json") }, "\(errors)")
    }

    // MARK: - Publishing a draft

    func testPublishedDraftBecomesTheNextVersionBesideTheOlderOne() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.post(client, "/templates/publish?basedOn=pump-inspection", json: Self.draft, session: fiona)
            XCTAssertEqual(response.status, .created, response.text)
            let published = try XCTUnwrap(response.json as? [String: Any])
            XCTAssertEqual(published["id"] as? String, "pump-inspection")
            XCTAssertEqual(published["version"] as? Int, 5)
            XCTAssertEqual(published["fileName"] as? String, "pump-inspection.v5.json")
            let templates = try await TemplateTests.list(client, token: try await client.login("fiona"))
            XCTAssertEqual(templates.first?["version"] as? Int, 5)
            XCTAssertEqual(templates.first?["title"] as? String, "Pump, reworked")
            // A second click publishes nothing: the draft is the newest version already.
            let again = try await Self.post(client, "/templates/publish?basedOn=pump-inspection", json: Self.draft, session: fiona)
            XCTAssertEqual(again.status, .conflict, again.text)
            XCTAssertEqual(again.errorCode, "template-unchanged", again.text)
            XCTAssertTrue(again.errorMessage?.contains("identical to version 5") ?? false, again.text)
            // A change is the next version.
            let changed = Self.draft.replacingOccurrences(of: "Ok?", with: "Still ok?")
            let next = try await Self.post(client, "/templates/publish?basedOn=pump-inspection", json: changed, session: fiona)
            XCTAssertEqual((next.json as? [String: Any])?["version"] as? Int, 6, next.text)
        }
        XCTAssertFalse(Files.exists(fixture.templates.appendingPathComponent("pump-inspection.v7.json")))
        let written = try Data(contentsOf: fixture.templates.appendingPathComponent("pump-inspection.v5.json"))
        XCTAssertEqual(try TemplateCoding().decode(written, source: "v5").version, 5)
        XCTAssertEqual(try Data(contentsOf: fixture.templates.appendingPathComponent("pump-inspection.json")),
                       Data(TemplateFixture.sampleJSON.utf8))
        XCTAssertFalse(Files.names(in: fixture.templates).contains { $0.hasPrefix(".") })
    }

    /// The loser of a race finds its version's file already there: 409, the winner's file intact.
    func testAVersionTakenByAnotherPublishIs409() async throws {
        let fixture = try ServerFixture()
        let winner = fixture.templates.appendingPathComponent("pump-inspection.v5.json")
        try Files.write("{ still being checked", to: winner)
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.post(client, "/templates/publish?basedOn=pump-inspection", json: Self.draft, session: fiona)
            XCTAssertEqual(response.status, .conflict, response.text)
            XCTAssertTrue(response.errorMessage?.contains("version 5 of template pump-inspection") ?? false, response.text)
        }
        XCTAssertEqual(try String(contentsOf: winner, encoding: .utf8), "{ still being checked")
    }

    func testConcurrentPublishesEachGetTheirOwnVersionOrA409() async throws {
        let fixture = try ServerFixture()
        let publisher = TemplatePublisher(catalog: TemplateCatalog(folder: fixture.templates, keys: .default,
                                                                   logger: fixture.logs.logger()))
        let draft = try JSONValue.parse(Data(Self.draft.utf8))
        let outcomes = await withTaskGroup(of: Result<Int, TemplatePublishError>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do { return .success(try publisher.publish(draft: draft, basedOn: "pump-inspection").version) } catch let error as TemplatePublishError {
                        return .failure(error)
                    } catch { return .failure(.versionTaken(template: "unexpected \(error)", version: 0)) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let versions = outcomes.compactMap { try? $0.get() }
        XCTAssertEqual(versions, [5], "eight identical drafts at once publish one version: \(outcomes)")
        for case .failure(let error) in outcomes {
            XCTAssertTrue(["template-version-taken", "template-unchanged"].contains(error.code), "\(error)")
        }
        let files = Files.names(in: fixture.templates).filter { $0.hasPrefix("pump-inspection.v") }
        XCTAssertEqual(files.count, versions.count)
    }

    /// "New template" with the id of a published one is refused at publish (409
    /// `template-id-exists`, nothing written) and reported by the check on the id field.
    func testANewTemplateWithAnExistingIdIsRefused() async throws {
        let fixture = try ServerFixture()
        let before = Files.names(in: fixture.templates)
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let check = try await Self.post(client, "/templates/check", json: Self.draft, session: fiona)
            XCTAssertEqual(check.status, .ok, check.text)
            let problems = try XCTUnwrap((check.json as? [String: Any])?["problems"] as? [[String: Any]])
            XCTAssertEqual(problems.first?["code"] as? String, "template-id-exists", check.text)
            XCTAssertEqual(problems.first?["field"] as? String, "id", check.text)
            XCTAssertTrue((problems.first?["message"] as? String)?.hasPrefix("this id exists — edit it instead?") ?? false, check.text)
            // Opened from the template itself, the same draft has no such problem.
            let fromEdit = try await Self.post(client, "/templates/check?basedOn=pump-inspection", json: Self.draft, session: fiona)
            XCTAssertEqual((fromEdit.json as? [String: Any])?["problems"] as? [[String: Any]]  as NSArray?, [] as NSArray, fromEdit.text)
            for path in ["/templates/publish", "/templates/publish?basedOn=", "/templates/publish?basedOn=another-template"] {
                let response = try await Self.post(client, path, json: Self.draft, session: fiona)
                XCTAssertEqual(response.status, .conflict, "\(path): \(response.text)")
                XCTAssertEqual(response.errorCode, "template-id-exists", response.text)
                XCTAssertTrue(response.errorMessage?.hasPrefix("this id exists — edit it instead?") ?? false, response.text)
            }
        }
        XCTAssertEqual(Files.names(in: fixture.templates), before, "nothing was published")
    }

    func testInvalidDraftIs422WithProblemsAndWritesNothing() async throws {
        let fixture = try ServerFixture()
        let before = Files.names(in: fixture.templates)
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let bad = #"{"id": "t", "title": "T", "questions": [{"id": "pick", "type": "multipleChoice", "text": "?", "options": ["a"], "Max-answers": 3}]}"#
            let response = try await Self.post(client, "/templates/publish", json: bad, session: fiona)
            XCTAssertEqual(response.status, .unprocessableContent, response.text)
            let problems = try XCTUnwrap((response.json as? [String: Any])?["problems"] as? [[String: String]])
            XCTAssertEqual(problems.first?["template"], "t")
            XCTAssertEqual(problems.first?["question"], "pick")
            XCTAssertEqual(problems.first?["field"], "Max-answers")
            try await assertStatus(.badRequest, await Self.post(client, "/templates/publish", json: "{", session: fiona))
        }
        XCTAssertEqual(Files.names(in: fixture.templates), before)
    }

    /// The probe of the issue: a title holding `ESC]0;…BEL ESC[2J` (retitle and clear the
    /// technician's terminal) was published. Every text of a template is held to the rule of
    /// answers: the editor's publish and check and the file upload refuse it, naming the field,
    /// and nothing is written.
    func testControlCharactersInAnyTemplateTextAreRefusedAtPublishAndUpload() async throws {
        let fixture = try ServerFixture()
        let before = Files.names(in: fixture.templates)
        let hostile = #"\u001b]0;owned\u0007\u001b[2J"#
        @Sendable func draft(title: String = "T", question: String) -> String {
            #"{"id": "hostile", "title": "\#(title)", "questions": [\#(question)]}"#
        }
        let cases: [(json: String, question: String?, field: String)] = [
            (draft(title: "Pump " + hostile, question: #"{"id": "q", "type": "trueFalse", "text": "Ok?"}"#), nil, "title"),
            (draft(question: #"{"id": "q", "type": "trueFalse", "text": "Ok?\#(hostile)"}"#), "q", "text"),
            (draft(question: #"{"id": "q", "type": "trueFalse", "text": "Ok?", "help": "\#(hostile)"}"#), "q", "help"),
            (draft(question: #"{"id": "q", "type": "multipleChoice", "text": "?", "options": ["a", "b\#(hostile)"]}"#), "q", "options"),
            (draft(question: #"{"id": "q", "type": "table", "text": "?", "rows": ["r\u0009"], "columns": ["c"]}"#), "q", "rows"),
            (draft(question: #"{"id": "q", "type": "table", "text": "?", "rows": ["r"], "columns": ["c\u009b2J"]}"#), "q", "columns"),
            (#"{"id": "hostile", "title": "T", "consent": "I agree\#(hostile)", "questions": [{"id": "q", "type": "trueFalse", "text": "?"}]}"#,
             nil, "consent"),
        ]
        try await fixture.test(.live) { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            for (json, question, field) in cases {
                let published = try await Self.post(client, "/templates/publish", json: json, session: fiona)
                XCTAssertEqual(published.status, .unprocessableContent, "\(field): \(published.text)")
                let problems = (published.json as? [String: Any])?["problems"] as? [[String: String]] ?? []
                XCTAssertTrue(problems.contains { $0["field"] == field && $0["question"] == question
                    && ($0["message"] ?? "").contains("contains the control character U+") }, "\(field): \(problems)")
                let checked = try await Self.post(client, "/templates/check", json: json, session: fiona)
                XCTAssertTrue(checked.text.contains("control character"), "the editor's check says so too: \(checked.text)")
                let uploaded = try await Self.upload(client, Data(json.replacingOccurrences(of: #""id": "hostile","#,
                                                                                             with: #""id": "hostile", "version": 1,"#).utf8),
                                                     filename: "hostile.json", session: fiona)
                XCTAssertEqual(uploaded.status, .unprocessableContent, "\(field): \(uploaded.text)")
                XCTAssertTrue(uploaded.text.contains("control character"), uploaded.text)
                XCTAssertFalse(uploaded.text.contains("\u{1B}"), "the page shows no raw ESC")
            }
            // Newlines stay allowed where a text may hold several lines.
            let multiline = draft(question: #"{"id": "q", "type": "trueFalse", "text": "Ok?\nReally?", "help": "Line 1\nLine 2"}"#)
            try await assertStatus(.created, await Self.post(client, "/templates/publish", json: multiline, session: fiona))
        }
        XCTAssertEqual(Set(Files.names(in: fixture.templates)), Set(before + ["hostile.v1.json"]))
    }

    func testTechniciansMayNotCheckOrPublish() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let ana = try await client.officeSession("ana", fixture: fixture)
            for path in ["/templates/check", "/templates/publish"] {
                let response = try await Self.post(client, path, json: Self.draft, session: ana)
                XCTAssertEqual(response.status, .forbidden, path)
                XCTAssertTrue(response.errorMessage?.contains("may not edit or publish templates") ?? false, response.text)
            }
            try await assertStatus(.forbidden, await Self.upload(client, Data(TemplateFixture.sampleJSON.utf8), filename: "t.json", session: ana))
            for path in ["/templates/new", "/templates/pump-inspection/edit"] {
                try await assertStatus(.forbidden, await Self.get(client, path, session: ana))
            }
            // No session, or no CSRF token: refused before anything is read.
            try await assertStatus(.unauthorized, await client.execute(uri: "/templates/check", method: .post, body: ByteBuffer(string: Self.draft)) { $0 })
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let forged = try await client.execute(uri: "/templates/publish", method: .post,
                                                  headers: [.cookie: fiona.cookieHeader, .contentType: "application/json"],
                                                  body: ByteBuffer(string: Self.draft)) { $0 }
            XCTAssertEqual(forged.status, .forbidden)
        }
        XCTAssertEqual(Files.names(in: fixture.templates), ["pump-inspection.json"])
    }

    // MARK: - Checking

    func testCheckReturnsProblemsAndPreview() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let good = try await Self.post(client, "/templates/check?basedOn=pump-inspection", json: Self.draft, session: fiona)
            XCTAssertEqual(good.status, .ok)
            let report = try JSONDecoder().decode(TemplateDraftReport.self, from: Data(buffer: good.body))
            XCTAssertEqual(report.problems, [])
            XCTAssertEqual(report.preview, "Pump, reworked (1 question)\n\nQuestion 1 of 1 [ok] — true/false\nOk?\ntrue/false > ")
            let bad = try await Self.post(client, "/templates/check", json: #"{"id": "t", "title": "", "questions": []}"#, session: fiona)
            let problems = try JSONDecoder().decode(TemplateDraftReport.self, from: Data(buffer: bad.body)).problems
            XCTAssertTrue(problems.contains { $0.template == "t" && $0.field == "questions" }, "\(problems)")
        }
        XCTAssertEqual(Files.names(in: fixture.templates), ["pump-inspection.json"])
    }

    // MARK: - Uploading a file

    func testUploadedNewerFileIsPublishedAsItsExactBytes() async throws {
        let fixture = try ServerFixture()
        let file = TemplateFixture.json(questions: [#"{"id": "q", "type": "shortAnswer", "text": "Notes"}"#], id: "pump-inspection", version: "7")
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.upload(client, file, filename: "pump.json", session: fiona)
            XCTAssertEqual(response.status, .seeOther, response.text)
            XCTAssertEqual(response.headers[.location], "/templates?published=pump-inspection&version=7")
            let page = try await Self.get(client, "/templates?published=pump-inspection&version=7", session: fiona)
            XCTAssertTrue(page.text.contains("Published pump-inspection version 7."), page.text)
            XCTAssertTrue(page.text.contains("id=\"upload\""), "a publisher is offered the upload")
            XCTAssertTrue(page.text.contains("action=\"/templates/upload\""), "the form's address carries no token")
            XCTAssertTrue(page.text.contains("<input type=\"hidden\" name=\"_csrf\" value=\"\(fiona.csrf)\">"),
                          "the multipart form carries its CSRF token in its body")
            XCTAssertFalse(page.text.contains("?_csrf="), page.text)
            XCTAssertTrue(page.text.contains("href=\"/templates/pump-inspection/edit\""), "and the editor")
            let served = try await client.get("/api/v1/templates/pump-inspection", token: try await client.login("fiona"))
            XCTAssertEqual(Data(buffer: served.body), file)
            let download = try await Self.get(client, "/templates/pump-inspection/versions/7", session: fiona)
            XCTAssertEqual(Data(buffer: download.body), file)
        }
    }

    func testUploadNotNewerIs409NamingTheFile() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.upload(client, Data(TemplateFixture.sampleJSON.utf8), filename: "pump.json", session: fiona)
            XCTAssertEqual(response.status, .conflict, response.text)
            XCTAssertTrue(response.text.contains("<ul class=\"problems\">"), response.text)
            XCTAssertTrue(response.text.contains("pump.json: template pump-inspection has version 4, but version 4 is already published"), response.text)
        }
        XCTAssertEqual(Files.names(in: fixture.templates), ["pump-inspection.json"])
    }

    func testInvalidUploadNamesTemplateQuestionAndField() async throws {
        let fixture = try ServerFixture()
        let file = TemplateFixture.json(questions: [#"{"id": "n", "type": "numeric", "text": "?", "min": 5, "max": 1}"#], id: "bad")
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let response = try await Self.upload(client, file, filename: "bad.json", session: fiona)
            XCTAssertEqual(response.status, .unprocessableContent, response.text)
            XCTAssertTrue(response.text.contains("<li>template bad, question n, field &quot;max&quot;:") ||
                          response.text.contains("<li>template bad, question n, field &quot;min&quot;:"), response.text)
            let empty = try await client.execute(uri: "/templates/upload", method: .post,
                                                 headers: [.cookie: fiona.cookieHeader, .contentType: "multipart/form-data; boundary=b",
                                                           CSRFMiddleware.header: fiona.csrf],
                                                 body: ByteBuffer(string: "--b--\r\n")) { $0 }
            XCTAssertEqual(empty.status, .badRequest, empty.text)
            // The token in the address is no longer taken: it belongs in the body or a header.
            var body = MultipartBody()
            body.parts.append(.init(name: "template", filename: "bad.json", contentType: "application/json", data: file))
            let inAddress = try await client.execute(uri: "/templates/upload?_csrf=\(fiona.csrf)", method: .post,
                                                     headers: [.cookie: fiona.cookieHeader, .contentType: body.contentType],
                                                     body: ByteBuffer(bytes: body.data)) { $0 }
            XCTAssertEqual(inAddress.status, .forbidden, inAddress.text)
        }
        XCTAssertEqual(Files.names(in: fixture.templates), ["pump-inspection.json"])
    }

    func testLinksOfAnIdWithURLCharactersAreEncoded() async throws {
        let fixture = try ServerFixture()
        let odd = TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Ok?"}"#], id: "a b?c#d", version: "2")
        try Files.write(odd, to: fixture.templates.appendingPathComponent("odd.json"))
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let page = try await Self.get(client, "/templates", session: fiona)
            XCTAssertTrue(page.text.contains("href=\"/templates/a%20b%3Fc%23d/versions/2\""), page.text)
            XCTAssertTrue(page.text.contains("href=\"/templates/a%20b%3Fc%23d/edit\""), page.text)
            let download = try await Self.get(client, "/templates/a%20b%3Fc%23d/versions/2", session: fiona)
            XCTAssertEqual(Data(buffer: download.body), odd)
        }
    }

    func testEditorPagesCarryTheKeysTheSourceAndTheScriptButNoInlineCode() async throws {
        let fixture = try ServerFixture([.set("TemplateKeys.maxAnswers", "most")])
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let edit = try await Self.get(client, "/templates/pump-inspection/edit", session: fiona)
            XCTAssertEqual(edit.status, .ok, edit.text)
            XCTAssertTrue(edit.text.contains("data-source=\"/templates/pump-inspection/versions/4\""), edit.text)
            XCTAssertTrue(edit.text.contains("&quot;maxAnswers&quot;:&quot;most&quot;"), "the configured key names")
            XCTAssertTrue(edit.text.contains("<script src=\"/static/editor.js\" defer></script>"))
            for id in ["template-id", "template-title", "new-question-type", "add-question", "problems", "preview", "publish", "publish-result"] {
                XCTAssertTrue(edit.text.contains("id=\"\(id)\""), id)
            }
            XCTAssertFalse(edit.text.contains("style="))
            XCTAssertFalse(edit.text.contains("onclick"))
            let new = try await Self.get(client, "/templates/new", session: fiona)
            XCTAssertEqual(new.status, .ok)
            XCTAssertFalse(new.text.contains("data-source"))
            try await assertStatus(.notFound, await Self.get(client, "/templates/nothing/edit", session: fiona))
            let script = try await client.execute(uri: "/static/editor.js", method: .get) { $0 }
            XCTAssertEqual(script.status, .ok)
            XCTAssertTrue(script.text.contains("/templates/check"))
        }
    }

    // MARK: - Forms in progress

    /// A form started from version 4 keeps version 4 after version 5 is published and
    /// fetched; a form started afterwards gets version 5.
    func testAFormInProgressKeepsItsVersionAfterAPublish() async throws {
        let fixture = try ServerFixture()
        let store = try StoreFixture()
        let (location, started) = try store.workflow().startForm(templateID: "pump-inspection")
        XCTAssertEqual(started.template.version, 4)
        try await fixture.test { client in
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            try await assertStatus(.created, await Self.post(client, "/templates/publish?basedOn=pump-inspection", json: Self.draft, session: fiona))
            let served = try await client.get("/api/v1/templates/pump-inspection", token: try await client.login("ana"))
            _ = try TemplateCache(store: store.store, keys: .default).install(Data(buffer: served.body), source: "server")
        }
        XCTAssertEqual(try store.store.load(location).template.version, 4)
        XCTAssertEqual(try store.store.load(location).template.questions.count, try TemplateFixture.sampleTemplate().questions.count)
        XCTAssertEqual(try store.workflow().startForm(templateID: "pump-inspection", name: "later").1.template.version, 5)
    }
}
