import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The audit log through the real API and office: a row for every kind of event, the hash
/// chain `mi-server audit verify` checks (intact, then a row edited or removed in the database
/// behind the server's back), the foremen-only listing and page, and hostile text shown as text.
/// SQLite here; `PostgresAuditTests` runs every test again on PostgreSQL.
class AuditTests: EngineTestCase {
    static let formID = ServerFixture.formID.description
    static let draft = #"{"id": "pump-inspection", "title": "Pump, reworked", "questions": [{"id": "ok", "type": "trueFalse", "text": "Ok?"}]}"#

    func testEveryKindOfEventIsOneRowWithWhoWhenWhereAndWhat() async throws {
        let fixture = try makeFixture()
        let rows = try await fixture.test(.live) { client in
            let fiona = try await client.login("fiona")
            let ana = try await client.login("ana")
            try await assertStatus(.unauthorized, await Self.apiSignIn(client, user: "fiona", password: "wrong"))
            // Upload: refused (a technician may not), then stored, then already stored.
            try await assertStatus(.forbidden, await Self.put(client, token: ana))
            try await assertStatus(.created, await Self.put(client, token: fiona))
            try await assertStatus(.ok, await Self.put(client, token: fiona))
            try await assertStatus(.ok, await client.get("/api/v1/submissions/\(Self.formID)", token: fiona))
            try await assertStatus(.ok, await client.get("/api/v1/submissions/\(Self.formID)/media/Qid0(1).jpg", token: fiona))
            let export = try await client.get("/api/v1/templates/pump-inspection/export.zip?media=false", token: fiona)
            try await assertStatus(.ok, export)
            // The office: a failed and a good sign-in, the submission's page, a publish.
            let form = try await client.signInForm()
            _ = try await client.postSignIn(user: "bob", password: "wrong", form: form)
            let office = try await client.officeSession("fiona", fixture: fixture)
            try await assertStatus(.ok, await Self.office(client, "/submissions/\(Self.formID)", session: office))
            try await assertStatus(.created, await client.execute(
                uri: "/templates/publish?basedOn=pump-inspection", method: .post,
                headers: [.cookie: office.cookieHeader, CSRFMiddleware.header: office.csrf, .contentType: "application/json"],
                body: ByteBuffer(string: Self.draft)) { $0 })
            // What the review code calls, from beside the running server.
            let log = AuditLog(store: try await Self.openStore(fixture),
                               logger: Logger(label: "test"), now: { fixture.clock.now })
            await log.record(AuditEntry(action: .reviewState, actor: "fiona", address: "10.1.2.3", subject: Self.formID,
                                        detail: "received → approved"))
            await log.record(AuditEntry(action: .sendBack, actor: "fiona", address: "10.1.2.3", subject: Self.formID,
                                        detail: "photo missing"))
            return try await Self.allEvents(client, token: fiona)
        }
        let summary = rows.map { "\($0.seq) \($0.actor) \($0.action) \($0.subject) \($0.detail)" }
        XCTAssertEqual(summary, [
            "1 fiona sign-in /api/v1/session foreman",
            "2 ana sign-in /api/v1/session technician",
            "3 fiona sign-in-failed /api/v1/session wrong user name or password — check both (and Caps Lock) and try again",
            "4 ana upload-refused \(Self.formID) 403: only a foreman may upload forms — you are logged in as ana, a technician; ask your foreman",
            "5 fiona upload \(Self.formID) stored",
            "6 fiona upload \(Self.formID) already stored",
            "7 fiona submission-view \(Self.formID) receipt (API)",
            "8 fiona media-download \(Self.formID) Qid0(1).jpg",
            "9 fiona export pump-inspection zip, 1 form(s), media=false",
            "10 bob sign-in-failed /login wrong user name or password — check both (and Caps Lock) and try again",
            "11 fiona sign-in /login foreman",
            "12 fiona submission-view \(Self.formID) office page",
            "13 fiona template-publish pump-inspection version 5 (editor)",
            "14 fiona review-state \(Self.formID) received → approved",
            "15 fiona send-back \(Self.formID) photo missing",
        ].reversed() as [String], "newest first")
        XCTAssertEqual(Set(rows.map(\.action)), Set(AuditAction.allCases.map(\.rawValue)), "every kind of event")
        for row in rows where row.seq <= 13 {
            XCTAssertEqual(row.address, "127.0.0.1", "row \(row.seq)")
        }
        XCTAssertEqual(rows.first?.address, "10.1.2.3")
        let newest = try XCTUnwrap(rows.first)
        XCTAssertLessThan(abs(newest.at.timeIntervalSince(fixture.clock.now)), 0.002, "stamped by the server's clock")
        // The chain: each row names the one before, and its own hash covers it.
        for (row, before) in zip(rows, rows.dropFirst()) {
            XCTAssertEqual(row.prevSHA256, before.sha256, "row \(row.seq)")
        }
        XCTAssertEqual(rows.last?.prevSHA256, AuditRecord.genesis)
        XCTAssertTrue(rows.allSatisfy { $0.sha256 == $0.computedSHA256 })
        let verified = try Self.verify(fixture)
        XCTAssertEqual(verified.status, 0, verified.errors)
        XCTAssertEqual(verified.output, "audit log intact: 15 row(s); last sha256 \(rows.first?.sha256 ?? "")\n")
    }

    func testVerifyFindsTheFirstChangedOrRemovedRowWhileTheServerRuns() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            for _ in 0..<5 { _ = try await client.login("fiona") }
            var verified = try Self.verify(fixture)
            XCTAssertEqual(verified.status, 0, verified.errors)
            XCTAssertTrue(verified.output.hasPrefix("audit log intact: 5 row(s); last sha256 "), verified.output)

            // An edited detail: row 3 no longer matches its hash.
            try Self.sql(fixture, "UPDATE audit_event SET actor = 'bob' WHERE seq = 3")
            verified = try Self.verify(fixture)
            XCTAssertEqual(verified.status, 65)
            XCTAssertEqual(verified.output, "")
            XCTAssertEqual(verified.errors, "mi-server: audit log broken at seq 3: row 3 was changed: its contents do not match its sha256\n")
            try Self.sql(fixture, "UPDATE audit_event SET actor = 'fiona' WHERE seq = 3")
            XCTAssertEqual(try Self.verify(fixture).status, 0, "put back, the chain holds again")

            // A removed row in the middle.
            try Self.sql(fixture, "DELETE FROM audit_event WHERE seq = 2")
            verified = try Self.verify(fixture)
            XCTAssertEqual(verified.status, 65)
            XCTAssertEqual(verified.errors, "mi-server: audit log broken at seq 2: row 2 is missing (the next row is 3)\n")

            // Renumbered to hide the gap: row 2 (once 3) does not chain to row 1.
            try Self.sql(fixture, "UPDATE audit_event SET seq = 2 WHERE seq = 3")
            verified = try Self.verify(fixture)
            XCTAssertEqual(verified.status, 65)
            XCTAssertEqual(verified.errors,
                           "mi-server: audit log broken at seq 2: row 2 does not chain to row 1: its prev_sha256 is not that row's sha256\n")

            // The server keeps appending after the break; the break is still found first.
            _ = try await client.login("fiona")
            XCTAssertEqual(try Self.verify(fixture).status, 65)
        }
    }

    func testRemovingTheNewestRowsIsFoundThroughTheHead() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            for _ in 0..<4 { _ = try await client.login("fiona") }
        }
        try Self.sql(fixture, "DELETE FROM audit_event WHERE seq >= 3")
        let verified = try Self.verify(fixture)
        XCTAssertEqual(verified.status, 65)
        XCTAssertEqual(verified.errors, "mi-server: audit log broken at seq 3: rows 3…4 are missing (the log's head names row 4)\n")
    }

    func testTechniciansGet403AndTheFiltersAndPagesWork() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let ana = try await client.login("ana")
            let fiona = try await client.login("fiona")
            for _ in 0..<3 { _ = try await Self.apiSignIn(client, user: "bob", password: "wrong") }
            let forbidden = try await client.get("/api/v1/audit", token: ana)
            try await assertStatus(.forbidden, forbidden)
            XCTAssertEqual(forbidden.errorMessage, "only a foreman may read the audit log — you are logged in as ana, a technician; ask your foreman")
            let anaOffice = try await client.officeSession("ana", fixture: fixture)
            let page = try await Self.office(client, "/audit", session: anaOffice)
            try await assertStatus(.forbidden, page)
            XCTAssertFalse(page.text.contains("sign-in-failed"), "no row on the refusal page")
            let home = try await Self.office(client, "/", session: anaOffice)
            XCTAssertFalse(home.text.contains("nav-audit"), "no Audit link for a technician")
            try await assertStatus(.unauthorized, await client.get("/api/v1/audit", token: nil))

            let failed = try await Self.page(client, "/api/v1/audit?action=sign-in-failed&actor=bob&limit=2", token: fiona)
            XCTAssertEqual(failed.events.map(\.seq), [5, 4])
            let older = try await Self.page(client, "/api/v1/audit?action=sign-in-failed&actor=bob&limit=2&cursor=\(failed.nextCursor ?? "")",
                                            token: fiona)
            XCTAssertEqual(older.events.map(\.seq), [3])
            XCTAssertNil(older.nextCursor)
            let today = UTCDay.string(fixture.clock.now)
            let tomorrow = UTCDay.string(fixture.clock.now.addingTimeInterval(86_400))
            let ofToday = try await Self.page(client, "/api/v1/audit?from=\(today)&to=\(today)", token: fiona)
            XCTAssertEqual(ofToday.events.count, 6, "two API sign-ins, three failed, ana's office sign-in")
            let ofTomorrow = try await Self.page(client, "/api/v1/audit?from=\(tomorrow)", token: fiona)
            XCTAssertEqual(ofTomorrow.events.count, 0)
            let unfiltered = try await Self.page(client, "/api/v1/audit?actor=&action=", token: fiona)
            XCTAssertEqual(unfiltered.events.count, 6, "empty filters count as absent")
            for bad in ["action=delete", "limit=0", "limit=501", "cursor=abc", "from=yesterday"] {
                let response = try await client.get("/api/v1/audit?\(bad)", token: fiona)
                try await assertStatus(.badRequest, response)
                XCTAssertNotNil(response.errorMessage, bad)
            }
        }
    }

    func testHostileTextIsShownAsTextOnTheOfficePage() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let hostile = #"<script>alert("x")</script><img src=x onerror=alert(1)>"#
            _ = try await Self.apiSignIn(client, user: hostile, password: "wrong")
            let office = try await client.officeSession("fiona", fixture: fixture)
            let page = try await Self.office(client, "/audit?action=sign-in-failed", session: office)
            try await assertStatus(.ok, page)
            XCTAssertFalse(page.text.contains("<script>alert"), page.text)
            XCTAssertFalse(page.text.contains("<img src=x"))
            XCTAssertTrue(page.text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), page.text)
            XCTAssertTrue(page.text.contains(#"id="nav-audit" href="/audit" class="current""#), "the foreman's navigation links the page")
            XCTAssertEqual(page.text.components(separatedBy: "class=\"event\"").count - 1, 1, "the filter keeps the one failed sign-in")
            let all = try await Self.office(client, "/audit?limit=1", session: office)
            XCTAssertTrue(all.text.contains(#"href="/audit?cursor="#), "a link to the older page")
            let bad = try await Self.office(client, "/audit?from=never", session: office)
            try await assertStatus(.badRequest, bad)
            XCTAssertTrue(bad.text.contains("from is &quot;never&quot;"), bad.text)
        }
    }

    /// Two servers on one database (two logs on one file or PostgreSQL database), appending at
    /// once: the rows still form one chain, numbered without gaps.
    func testConcurrentAppendsFromTwoServersFormOneChain() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await client.login("fiona")
            let logs = [try await Self.openLog(fixture), try await Self.openLog(fixture)]
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        await logs[index % 2].record(AuditEntry(action: .reviewState, actor: "fiona", address: "10.0.0.\(index % 2)",
                                                                subject: "s\(index)", detail: "server \(index % 2)"))
                    }
                }
            }
            let verdict = try await logs[0].store.verify()
            guard case .intact(let rows, _) = verdict else { return XCTFail("\(verdict)") }
            XCTAssertEqual(rows, 41)
            let verified = try Self.verify(fixture)
            XCTAssertEqual(verified.status, 0, verified.errors)
        }
    }

    static func openLog(_ fixture: ServerFixture) async throws -> AuditLog {
        AuditLog(store: try await openStore(fixture), logger: Logger(label: "test"), now: { Date() })
    }

    /// The audit store beside a repository of the fixture's database, as the server opens it.
    static func openStore(_ fixture: ServerFixture) async throws -> any AuditStore {
        let repository = try await openRepository(fixture.configuration.server, layout: fixture.layout, logger: Logger(label: "test"))
        return try await AuditLog.openStore(beside: repository, logger: Logger(label: "test"))
    }

    // MARK: - Helpers

    static func apiSignIn(_ client: any TestClientProtocol, user: String, password: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["user": user, "password": password])
        return try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                        body: ByteBuffer(bytes: body)) { $0 }
    }

    static func put(_ client: any TestClientProtocol, token: String) async throws -> TestResponse {
        let body = try ServerFixture.upload()
        return try await client.execute(uri: "/api/v1/submissions/\(formID)", method: .put,
                                        headers: [.authorization: "Bearer \(token)", .contentType: body.contentType],
                                        body: ByteBuffer(bytes: body.data)) { $0 }
    }

    static func office(_ client: any TestClientProtocol, _ path: String, session: OfficeBrowserSession) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: [.cookie: session.cookieHeader, .accept: "text/html"]) { $0 }
    }

    static func page(_ client: any TestClientProtocol, _ uri: String, token: String) async throws -> AuditPage {
        let response = try await client.get(uri, token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try JSONDecoder().decode(AuditPage.self, from: Data(buffer: response.body))
    }

    static func allEvents(_ client: any TestClientProtocol, token: String) async throws -> [AuditRecord] {
        try await page(client, "/api/v1/audit?limit=500", token: token).events
    }

    /// Runs `statement` on the fixture's database as an administrator would (sqlite3, psql).
    static func sql(_ fixture: ServerFixture, _ statement: String) throws {
        switch fixture.configuration.server.database {
        case .sqlite:
            _ = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/sqlite3"), [fixture.layout.database.path, statement])
        case .postgres(let location):
            _ = try SharedPostgres.server().psql(statement, database: location.database)
        }
    }

    /// `mi-server audit verify --config …` of the built binary: status, stdout, stderr.
    static func verify(_ fixture: ServerFixture) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = serverBinary
        process.arguments = ["audit", "verify", "--config", fixture.directory.url.appendingPathComponent("Config.plist").path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    static let serverBinary: URL = {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("mi-server"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mi-server"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug/mi-server"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }()
}

/// The same tests on PostgreSQL (a real server, `PostgresServer.shared()`).
final class PostgresAuditTests: AuditTests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws {
        try await assertUploadsLandInTheEngine()
    }
}
