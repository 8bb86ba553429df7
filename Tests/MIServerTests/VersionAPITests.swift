import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// Versions through the real HTTP API (a live server on a loopback port): a form the office sent
/// back comes again corrected and is stored as version 2 beside version 1, which stays byte for
/// byte; the versions, each version's form and media, and the diff are served; stale and
/// unrequested corrections are 409 naming the current version; exports give every version on
/// request; a backup carries them and a restore serves them again.
class VersionAPITests: EngineTestCase {
    static let id = ServerFixture.formID.description
    static let retaken = Data((0..<4000).map { UInt8($0 % 13) })

    /// The technician's corrected copy of the standard form, as `mi` uploads it after `mi sync`:
    /// it supersedes `supersedes`, carries the office's flags with a reply, answers `notes`
    /// anew, and its guard photo was taken again.
    static func corrected(supersedes: Int = 1, note: String = "seal replaced, no leak", user: String = "ana") throws -> Data {
        var form = try FormFile.decode(try ServerFixture.formData(user: user))
        let flagged = TestClock.start
        form.flags = [
            FormFlag(question: "guard", note: "photo is blurred", by: "fiona", at: flagged,
                     returned: form.answers["guard"] ?? Answer(), reply: "photo taken again"),
            FormFlag(question: "notes", note: "say what was done", by: "fiona", at: flagged,
                     returned: form.answers["notes"] ?? Answer()),
        ]
        form.answers["notes"] = Answer(value: .text(note))
        form.supersedes = supersedes
        form.returnedAt = flagged
        return try FormFile.encode(form)
    }

    static func correctedUpload(supersedes: Int = 1, note: String = "seal replaced, no leak", user: String = "ana") throws -> MultipartBody {
        var media = ServerFixture.media
        media["Qid0(1).jpg"] = retaken
        return try ServerFixture.upload(formData: try corrected(supersedes: supersedes, note: note, user: user), media: media)
    }

    static let sendBack = #"{"note": "two things to fix", "flags": [{"question": "guard", "note": "photo is blurred"}, {"question": "notes", "note": "say what was done"}]}"#

    /// Every file of `folder`, by name.
    static func files(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    func testACorrectedFormIsStoredAsVersionTwoAndVersionOneStaysByteForByte() async throws {
        let fixture = try makeFixture()
        let layout = fixture.layout
        try await fixture.test(.live) { client in
            let fiona = try await client.login("fiona")
            let first = try await client.upload(try ServerFixture.upload(), token: fiona)
            XCTAssertEqual(first.status, .created, first.text)
            let v1 = try first.receipt()
            XCTAssertNil(v1.version, "a first version's receipt names no version")
            let v1Files = try Self.files(layout.submission(v1.id))
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.id)/send-back", .post, Self.sendBack, token: fiona))

            let second = try await client.upload(try Self.correctedUpload(), token: fiona)
            XCTAssertEqual(second.status, .created, second.text)
            let v2 = try second.receipt()
            XCTAssertEqual(v2.version, 2)
            XCTAssertEqual(v2.part(named: "Qid0(1).jpg")?.sha256, ServerFixture.sha256(Self.retaken))
            let again = try await client.upload(try Self.correctedUpload(), token: fiona)
            XCTAssertEqual(again.status, .ok, "the same content again is answered with its receipt: \(again.text)")
            XCTAssertEqual(try again.receipt(), v2)

            // Version 1 is where it was, byte for byte; version 2 beside it.
            XCTAssertEqual(try Self.files(layout.submission(v1.id)), v1Files)
            XCTAssertEqual(try Self.files(layout.submission(v1.id, version: 2))["Qid0(1).jpg"], Self.retaken)
            let shown = try await client.get("/api/v1/submissions/\(Self.id)", token: fiona)
            XCTAssertEqual(try shown.receipt(), v2, "the submission's receipt is the current version's")

            let listed = try await client.get("/api/v1/submissions/\(Self.id)/versions", token: fiona)
            XCTAssertEqual(listed.status, .ok, listed.text)
            let versions = try WireJSON.decoder().decode(SubmissionVersions.self, from: Data(buffer: listed.body))
            XCTAssertEqual(versions.current, 2)
            XCTAssertEqual(versions.versions, [v1, v2])

            let old = try await client.get("/api/v1/submissions/\(Self.id)/versions/1", token: fiona)
            XCTAssertEqual(old.status, .ok, old.text)
            let oldDocument = try XCTUnwrap(old.json as? [String: Any])
            XCTAssertEqual(((oldDocument["form"] as? [String: Any])?["answers"] as? [String: Any]).flatMap { ($0["notes"] as? [String: Any])?["value"] as? String },
                           "all fine")
            XCTAssertEqual(try JSONSerialization.data(withJSONObject: oldDocument["form"] as Any, options: .sortedKeys),
                           try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: try XCTUnwrap(v1Files["form.json"])), options: .sortedKeys))
            let oldPhoto = try await client.get("/api/v1/submissions/\(Self.id)/versions/1/media/Qid0(1).jpg", token: fiona)
            XCTAssertEqual(Data(buffer: oldPhoto.body), ServerFixture.media["Qid0(1).jpg"])
            let newPhoto = try await client.get("/api/v1/submissions/\(Self.id)/media/Qid0(1).jpg", token: fiona)
            XCTAssertEqual(Data(buffer: newPhoto.body), Self.retaken)

            // The diff: exactly the changed answer, the photo by SHA-256, the flags and the reply.
            let expected = [
                FormChange(kind: .mediaRemoved, question: "guard", media: "Qid0(1).jpg", sha256: ServerFixture.sha256(try XCTUnwrap(ServerFixture.media["Qid0(1).jpg"]))),
                FormChange(kind: .mediaAdded, question: "guard", media: "Qid0(1).jpg", sha256: ServerFixture.sha256(Self.retaken)),
                FormChange(kind: .flag, question: "guard", after: "photo is blurred"),
                FormChange(kind: .reply, question: "guard", after: "photo taken again"),
                FormChange(kind: .answer, question: "notes", before: "all fine", after: "seal replaced, no leak"),
                FormChange(kind: .flag, question: "notes", after: "say what was done"),
            ]
            for query in ["?from=1&to=2", ""] {
                let diff = try await client.get("/api/v1/submissions/\(Self.id)/diff\(query)", token: fiona)
                XCTAssertEqual(diff.status, .ok, diff.text)
                let changes = try WireJSON.decoder().decode(SubmissionDiff.self, from: Data(buffer: diff.body))
                XCTAssertEqual(changes, SubmissionDiff(id: v1.id, from: 1, to: 2, changes: expected), query)
            }

            // The office's review: edited, the send-back answered, nothing returned any more.
            let review = try await client.review(Self.id, token: fiona)
            XCTAssertEqual(review.reviewState, .edited)
            XCTAssertEqual(review.history.last, ReviewEvent(reviewState: .edited, by: "fiona", at: TestClock.start,
                                                            note: "version 2 replaced version 1"))
            XCTAssertNil(review.sendBack)
            let ana = try await client.login("ana")
            let returned = try await client.returned(token: ana)
            XCTAssertEqual(returned, [])

            // Listed once, as version 2, filterable as edited.
            let page = try await client.get("/api/v1/submissions?reviewState=edited", token: fiona)
            let summaries = try WireJSON.decoder().decode(SubmissionPage.self, from: Data(buffer: page.body)).submissions
            XCTAssertEqual(summaries.map(\.id), [v1.id])
            XCTAssertEqual(summaries.first?.version, 2)
            XCTAssertEqual(summaries.first?.reviewState, .edited)

            // Exports: the current version by default, every version on request.
            let currentZip = try await client.get(ExportAPITests.path, token: fiona)
            let current = try ExportAPITests.records(try XCTUnwrap(try ExportAPITests.archive(currentZip).entry("pump-inspection.csv")).data)
            XCTAssertEqual(current.count, 2, "the header and the current version")
            let notes = try XCTUnwrap(current.first?.firstIndex(of: "notes"))
            XCTAssertEqual(current.last?[notes], "seal replaced, no leak")
            XCTAssertFalse(current.first?.contains("Version") ?? true)
            let everyResponse = try await client.get(ExportAPITests.path + "?allVersions=true", token: fiona)
            let everyZip = try ExportAPITests.archive(everyResponse)
            let every = try ExportAPITests.records(try XCTUnwrap(everyZip.entry("pump-inspection.csv")).data)
            XCTAssertEqual(Array(every.first?.suffix(3) ?? []), ["ReviewState", "Version", "Supersedes"])
            XCTAssertEqual(every.dropFirst().map { [$0[notes]] + $0.suffix(2) },
                           [["all fine", "1", ""], ["seal replaced, no leak", "2", "1"]])
            XCTAssertEqual(everyZip.entry("media/\(Self.id)/Qid0(1).jpg")?.data, Array(try XCTUnwrap(ServerFixture.media["Qid0(1).jpg"])))
            XCTAssertEqual(everyZip.entry("media/\(Self.id)/v2/Qid0(1).jpg")?.data, Array(Self.retaken))
            let bad = try await client.get(ExportAPITests.path + "?allVersions=yes", token: fiona)
            XCTAssertEqual(bad.status, .badRequest, bad.text)

            // The audit log names the form of each upload (a POST names it only in its body).
            let uploads = try await AuditTests.allEvents(client, token: fiona).filter { $0.action == "upload" }
            XCTAssertEqual(uploads.reversed().map { "\($0.subject) \($0.detail)" }, [
                "\(Self.id) stored", "\(Self.id) stored as version 2", "\(Self.id) already stored as version 2",
            ])
        }
        // Kept across a restart.
        try await fixture.test { client in
            let fiona = try await client.login("fiona")
            let listed = try await client.get("/api/v1/submissions/\(Self.id)/versions", token: fiona)
            let versions = try WireJSON.decoder().decode(SubmissionVersions.self, from: Data(buffer: listed.body))
            XCTAssertEqual(versions.versions.map(\.storedVersion), [1, 2])
        }
    }

    func testStaleAndUnrequestedCorrectionsAre409NamingTheCurrentVersion() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: fiona))
            let unrequested = try await client.upload(try Self.correctedUpload(), token: fiona)
            XCTAssertEqual(unrequested.status, .conflict, unrequested.text)
            XCTAssertTrue(unrequested.errorMessage?.contains("as version 1, with different content") ?? false, unrequested.text)
            XCTAssertTrue(unrequested.errorMessage?.contains("has not sent version 1 back") ?? false, unrequested.text)

            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.id)/send-back", .post, Self.sendBack, token: fiona))
            let wrongVersion = try await client.upload(try Self.correctedUpload(supersedes: 3), token: fiona)
            XCTAssertEqual(wrongVersion.status, .conflict, wrongVersion.text)
            XCTAssertTrue(wrongVersion.errorMessage?.contains("corrects version 3") ?? false, wrongVersion.text)
            let anotherTechnician = try await client.upload(try Self.correctedUpload(user: "bob"), token: fiona)
            XCTAssertEqual(anotherTechnician.status, .conflict, anotherTechnician.text)
            XCTAssertTrue(anotherTechnician.errorMessage?.contains("must be the same technician's form of the same template; this one is bob's pump-inspection") ?? false, anotherTechnician.text)
            try await assertStatus(.created, await client.upload(try Self.correctedUpload(), token: fiona))

            // Another copy corrected from version 1, arriving after version 2: stale.
            let stale = try await client.upload(try Self.correctedUpload(note: "another fix"), token: fiona)
            XCTAssertEqual(stale.status, .conflict, stale.text)
            XCTAssertTrue(stale.errorMessage?.contains("as version 2") ?? false, stale.text)
            XCTAssertTrue(stale.errorMessage?.contains("stale") ?? false, stale.text)
            // The first version's content again: not the current version, so refused too.
            let original = try await client.upload(try ServerFixture.upload(), token: fiona)
            XCTAssertEqual(original.status, .conflict, original.text)
            XCTAssertTrue(original.errorMessage?.contains("as version 2") ?? false, original.text)

            let listed = try await client.get("/api/v1/submissions/\(Self.id)/versions", token: fiona)
            let versions = try WireJSON.decoder().decode(SubmissionVersions.self, from: Data(buffer: listed.body))
            XCTAssertEqual(versions.versions.map(\.storedVersion), [1, 2], "the refusals stored nothing")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.layout.versions.appendingPathComponent(Self.id).path)
            XCTAssertEqual(leftovers, ["2"])
        }
        // What a server killed between placing a version and committing it leaves is swept at
        // the next start; the committed version 2 stays.
        let versions = fixture.layout.versions
        let other = FormID().description
        for folder in ["\(Self.id)/3", "\(Self.id)/02", "\(other)/2", "not-a-form/2"] {
            try FileManager.default.createDirectory(at: versions.appendingPathComponent(folder), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: versions.appendingPathComponent(folder).appendingPathComponent("form.json"))
        }
        let kept = try Self.files(fixture.layout.submission(ServerFixture.formID, version: 2))
        try await fixture.test { _ in }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: versions.path)), [Self.id, other])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: versions.appendingPathComponent(Self.id).path), ["2"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: versions.appendingPathComponent(other).path), [])
        XCTAssertEqual(try Self.files(fixture.layout.submission(ServerFixture.formID, version: 2)), kept)
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("removed unfinished uploads left by an earlier run") }, "\(fixture.logs.messages)")
    }

    func testTheOfficeListsTheVersionsAndShowsWhatChanged() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: token))
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let single = try await client.officePage("/submissions/\(Self.id)", fiona)
            XCTAssertFalse(single.contains("id=\"versions\""), "one version: no versions panel")
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.id)/send-back", .post, Self.sendBack, token: token))
            try await assertStatus(.created, await client.upload(try Self.correctedUpload(), token: token))

            let page = try await client.officePage("/submissions/\(Self.id)", fiona)
            XCTAssertTrue(page.contains("<section id=\"versions\" class=\"panel\" data-current=\"2\" data-shown=\"2\">"), page)
            XCTAssertTrue(page.contains("<h2>Changes from version 1 to 2</h2>"), page)
            XCTAssertTrue(page.contains("<tr class=\"change change-answer\" data-question=\"notes\" data-kind=\"answer\"><td><code>notes</code></td><td>Answer changed</td><td class=\"before\">all fine</td><td class=\"after\">seal replaced, no leak</td></tr>"), page)
            XCTAssertTrue(page.contains("data-kind=\"mediaAdded\""), page)
            XCTAssertTrue(page.contains("/api/v1/submissions/\(Self.id)/versions/2/media/Qid0%281%29.jpg"), "the current version's media: \(page)")
            XCTAssertFalse(page.contains("old-version"), page)
            XCTAssertTrue(page.contains("<option value=\"\" selected disabled>Edited (set by the server)</option>"), page)

            let old = try await client.officePage("/submissions/\(Self.id)?version=1", fiona)
            XCTAssertTrue(old.contains("You are reading version 1; version 2 replaced it."), old)
            XCTAssertTrue(old.contains("/api/v1/submissions/\(Self.id)/media/Qid0%281%29.jpg"), "version 1's media are the first folder's: \(old)")
            XCTAssertFalse(old.contains("/versions/2/media/"), old)
            XCTAssertTrue(old.contains("href=\"/submissions/\(Self.id)/form.json?version=1\""), old)
            XCTAssertFalse(old.contains("Changes from"), "version 1 has nothing before it: \(old)")
            let oldForm = try await client.execute(uri: "/submissions/\(Self.id)/form.json?version=1", method: .get,
                                                   headers: [.cookie: fiona.cookieHeader]) { $0 }
            XCTAssertEqual(Data(buffer: oldForm.body), try Data(contentsOf: fixture.layout.submission(ServerFixture.formID)
                .appendingPathComponent("form.json")))
            let missing = try await client.execute(uri: "/submissions/\(Self.id)?version=7", method: .get,
                                                   headers: [.cookie: fiona.cookieHeader, .accept: "text/html"]) { $0 }
            XCTAssertEqual(missing.status, .notFound, missing.text)

            let bob = try await client.officeSession("bob", fixture: fixture)
            let refused = try await client.execute(uri: "/submissions/\(Self.id)?version=1", method: .get,
                                                   headers: [.cookie: bob.cookieHeader, .accept: "text/html"]) { $0 }
            XCTAssertEqual(refused.status, .forbidden, "another technician's form")

            let listing = try await client.officePage("/submissions", fiona)
            XCTAssertTrue(listing.contains("<span class=\"badge version\" title=\"corrected after the office sent it back: this is version 2\">v2</span>"), listing)
            let stats = try await client.officePage("/templates/pump-inspection/stats", fiona)
            XCTAssertTrue(stats.contains("id=\"export-all-versions\" class=\"button secondary\" href=\"/api/v1/templates/pump-inspection/export.zip?allVersions=true\""), stats)
        }
    }

    func testATechnicianReadsOnlyTheirOwnVersionsAndBadRequestsAreClear() async throws {
        let fixture = try makeFixture()
        try await fixture.test(.live) { client in
            let fiona = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: fiona))
            let bob = try await client.login("bob"), ana = try await client.login("ana")
            for uri in ["/versions", "/versions/1", "/diff?from=1&to=1", "/versions/1/media/Qid0(1).jpg"] {
                let other = try await client.get("/api/v1/submissions/\(Self.id)\(uri)", token: bob)
                XCTAssertEqual(other.status, .forbidden, "\(uri): \(other.text)")
                let own = try await client.get("/api/v1/submissions/\(Self.id)\(uri)", token: ana)
                XCTAssertEqual(own.status, .ok, "\(uri): \(own.text)")
            }
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("/api/v1/submissions/\(Self.id)/versions/2", .notFound, "has no version 2 — it has 1"),
                ("/api/v1/submissions/\(Self.id)/versions/x", .notFound, "has no version x"),
                ("/api/v1/submissions/\(Self.id)/diff", .notFound, "has no version 0"),
                ("/api/v1/submissions/\(Self.id)/diff?from=one", .badRequest, "parameter `from` is \"one\""),
                ("/api/v1/submissions/\(Self.id)/versions/2/media/Qid0(1).jpg", .notFound, "has no version 2"),
                ("/api/v1/submissions/\(UUID().uuidString)/versions", .notFound, "no submission"),
            ]
            for (uri, status, message) in cases {
                let response = try await client.get(uri, token: fiona)
                XCTAssertEqual(response.status, status, "\(uri): \(response.text)")
                XCTAssertTrue(response.errorMessage?.contains(message) ?? false, "\(uri): \(response.text)")
            }
        }
    }

    /// Backed up on this class's engine and restored into the other one: every version, the
    /// review (state, history, send-backs) and the audit log, whose chain still verifies.
    func testABackupCarriesEveryVersionTheReviewAndTheAuditLogIntoTheOtherEngine() async throws {
        let fixture = try makeFixture()
        let (v1, v2, review) = try await fixture.test(.live) { client in
            let fiona = try await client.login("fiona")
            let first = try await client.upload(try ServerFixture.upload(), token: fiona)
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.id)/send-back", .post, Self.sendBack, token: fiona))
            let second = try await client.upload(try Self.correctedUpload(), token: fiona)
            XCTAssertEqual(second.status, .created, second.text)
            let bobs = try ServerFixture.formData(id: try XCTUnwrap(FormID(ReviewAPITests.bobsForm)), user: "bob")
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(formData: bobs), token: fiona))
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(ReviewAPITests.bobsForm)/send-back", .post,
                                                           #"{"note": "sign it", "flags": []}"#, token: fiona))
            return (try first.receipt(), try second.receipt(), try await client.review(Self.id, token: fiona))
        }
        let source = try await AuditLog.openStore(beside: try await fixture.openRepository(), logger: Logger(label: "test"))
        let sourceAudit = try await source.verify()
        guard case .intact(let rows, _) = sourceAudit, rows > 5 else { return XCTFail("the source's log: \(sourceAudit)") }

        let scratch = try TemporaryDirectory()
        let archive = scratch.url.appendingPathComponent("backup.tar")
        let fd = open(archive.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let summary = try await ServerBackup(configuration: fixture.configuration, includeSecrets: false, logger: Logger(label: "test"))
            .write(to: ArchiveOutput(fd: fd, name: archive.path))
        close(fd)
        XCTAssertEqual(summary.submissions, 2, "two submissions, one with two versions")

        let target = try ServerFixture(engine: Self.engine == .sqlite ? .postgres : .sqlite)
        try FileManager.default.removeItem(at: target.templates)
        let input = ArchiveInput(fd: open(archive.path, O_RDONLY), name: archive.path)
        _ = try await ServerRestore(configuration: target.configuration, logger: Logger(label: "test")).run(from: input)
        close(input.fd)
        XCTAssertEqual(try Self.files(target.layout.submission(v1.id)), try Self.files(fixture.layout.submission(v1.id)))
        XCTAssertEqual(try Self.files(target.layout.submission(v1.id, version: 2)), try Self.files(fixture.layout.submission(v1.id, version: 2)))
        let restored = try await AuditLog.openStore(beside: try await target.openRepository(), logger: Logger(label: "test"))
        let restoredAudit = try await restored.verify()
        XCTAssertEqual(restoredAudit, sourceAudit, "the same chain, intact")
        try await target.test(.live) { client in
            let fiona = try await client.login("fiona")
            let listed = try await client.get("/api/v1/submissions/\(Self.id)/versions", token: fiona)
            XCTAssertEqual(listed.status, .ok, listed.text)
            let versions = try WireJSON.decoder().decode(SubmissionVersions.self, from: Data(buffer: listed.body))
            XCTAssertEqual(versions.versions, [v1, v2])
            let diff = try await client.get("/api/v1/submissions/\(Self.id)/diff", token: fiona)
            XCTAssertEqual(diff.status, .ok, diff.text)
            XCTAssertEqual(try WireJSON.decoder().decode(SubmissionDiff.self, from: Data(buffer: diff.body)).changes.count, 6)
            let photo = try await client.get("/api/v1/submissions/\(Self.id)/versions/1/media/Qid0(1).jpg", token: fiona)
            XCTAssertEqual(Data(buffer: photo.body), ServerFixture.media["Qid0(1).jpg"])
            let kept = try await client.review(Self.id, token: fiona)
            XCTAssertEqual(kept, review, "the review as it was: state, history, no open send-back")
            let bob = try await client.login("bob")
            let returned = try await client.returned(token: bob)
            XCTAssertEqual(returned.map(\.note), ["sign it"], "bob's open send-back is still open")
            let edited = try await client.get("/api/v1/submissions?reviewState=edited", token: fiona)
            XCTAssertEqual(try WireJSON.decoder().decode(SubmissionPage.self, from: Data(buffer: edited.body)).submissions.map(\.id), [v1.id])
        }
    }
}

final class PostgresVersionAPITests: VersionAPITests {
    override class var engine: RepositoryEngine { .postgres }

    func testTheVersionTablesAreInThePostgreSQLDatabase() async throws {
        try await assertUploadsLandInTheEngine()
        let fixture = try makeFixture()
        try await fixture.test { client in
            let fiona = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: fiona))
            try await assertStatus(.ok, await client.send("/api/v1/submissions/\(Self.id)/send-back", .post, Self.sendBack, token: fiona))
            try await assertStatus(.created, await client.upload(try Self.correctedUpload(), token: fiona))
        }
        guard case .postgres(let location) = fixture.configuration.server.database else { return XCTFail("not PostgreSQL") }
        let server = try SharedPostgres.server()
        XCTAssertEqual(try server.psql("SELECT version, review_state FROM submission", database: location.database), "2|edited\n")
        XCTAssertEqual(try server.psql("SELECT version, count(*) FROM version_part GROUP BY version", database: location.database), "1|3\n")
    }
}
