import Foundation
import Hummingbird
import HummingbirdTesting
import MIDirectory
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// What the server no longer takes on a foreman's word (`SubmissionAcceptance`): form.json's
/// `user` must be a safe name of a technician the directory knows, spelled as the directory
/// spells it, and the template one the server has — on every way in. Against a live server.
final class SubmissionAcceptanceTests: XCTestCase {
    /// form.json of a completed form of `templateID` (the sample template, renamed) by `user`.
    private static func formData(user: String, templateID: String = "pump-inspection") throws -> Data {
        var template = try TemplateFixture.sampleTemplate()
        template.id = templateID
        var form = Form(id: ServerFixture.formID, name: "pump-1", user: user, template: template, createdAt: TestClock.start)
        form.status = .completed
        form.answers["notes"] = Answer(value: .text("all fine"))
        return try FormFile.encode(form)
    }

    private static func upload(user: String, templateID: String = "pump-inspection") throws -> MultipartBody {
        try ServerFixture.upload(formData: try formData(user: user, templateID: templateID), media: [:])
    }

    /// `PUT {id}` without a manifest, as `curl -T` could send it: the same checks as POST.
    private static func put(_ client: any TestClientProtocol, _ body: MultipartBody, token: String) async throws -> TestResponse {
        try await client.execute(uri: "/api/v1/submissions/\(ServerFixture.formID.description)", method: .put,
                                 headers: [.authorization: "Bearer \(token)", .contentType: body.contentType],
                                 body: ByteBuffer(bytes: body.data)) { $0 }
    }

    func testUsersTheDirectoryDoesNotVouchForAndUnknownTemplatesAre422AndNothingIsStored() async throws {
        let fixture = try ServerFixture()
        let cases: [(user: String, template: String, message: String)] = [
            ("../../x", "pump-inspection", #"names the user "../../x", which cannot be a user name: it contains "/""#),
            ("nobody", "pump-inspection", "names the user nobody, whom the directory does not know"),
            ("fiona", "pump-inspection", "names the user fiona, who is a foreman, not a technician"),
            ("ana", "never-had", "is of template never-had, which this server does not have"),
        ]
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            for (user, template, message) in cases {
                for method in ["POST", "PUT"] {
                    let body = try Self.upload(user: user, templateID: template)
                    let response = method == "POST" ? try await client.upload(body, token: token)
                                                    : try await Self.put(client, body, token: token)
                    XCTAssertEqual(response.status, .unprocessableContent, "\(method) \(user) \(template): \(response.text)")
                    XCTAssertTrue(response.errorMessage?.contains(message) ?? false, "\(method): \(response.text)")
                    XCTAssertTrue(response.errorMessage?.contains("the form was not stored") ?? false, response.text)
                }
            }
            try await assertStatus(.notFound, await client.get("/api/v1/submissions/\(ServerFixture.formID)", token: token))
            // A technician the directory knows, of a template the server has: stored.
            try await assertStatus(.created, await client.upload(try Self.upload(user: "ana"), token: token))
        }
        XCTAssertEqual(Files.names(in: fixture.layout.submissions).count, 1)
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
    }

    /// form.json of a completed pump inspection without a leak, listing `photo` as its leak photo.
    private static func dryPumpForm(photo: [String]) throws -> Data {
        var form = Form(id: ServerFixture.formID, name: "pump-1", user: "ana", template: try TemplateFixture.sampleTemplate(),
                        createdAt: TestClock.start)
        form.status = .completed
        form.answers["leaks"] = Answer(value: .choices(["None"]))
        form.answers["leak_photo"] = Answer(media: photo)
        form.answers["notes"] = Answer(value: .text("all fine"))
        return try FormFile.encode(form)
    }

    /// The pump inspection's leak photo is its file: a form without a leak that still lists
    /// one breaks the template's logic (422, naming the question, nothing stored), as `mi submit`
    /// would have removed it; without the photo the same form is stored.
    func testAPhotoKeptForAQuestionThatIsNotRelevantIs422AndNothingIsStored() async throws {
        let fixture = try ServerFixture()
        let photo = ["Qid2(1).jpg": Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 100)]
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let kept = try await client.upload(try ServerFixture.upload(formData: try Self.dryPumpForm(photo: ["Qid2(1).jpg"]), media: photo), token: token)
            XCTAssertEqual(kept.status, .unprocessableContent, kept.text)
            XCTAssertTrue(kept.errorMessage?.contains("leak_photo") ?? false, kept.text)
            XCTAssertTrue(kept.errorMessage?.contains("not relevant") ?? false, kept.text)
            try await assertStatus(.notFound, await client.get("/api/v1/submissions/\(ServerFixture.formID)", token: token))
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(formData: try Self.dryPumpForm(photo: []), media: [:]), token: token))
        }
        XCTAssertEqual(Files.names(in: fixture.layout.submissions).count, 1)
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
    }

    /// The directory cannot be asked: 503 with Retry-After, never stored unchecked; once it is
    /// back, the same upload is stored.
    func testAnUnreachableDirectoryIs503WithRetryAfterAndNothingIsStored() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            fixture.fakeDirectory.unreachable = true
            let refused = try await client.upload(try Self.upload(user: "bob"), token: token)
            XCTAssertEqual(refused.status, .serviceUnavailable, refused.text)
            XCTAssertEqual(refused.headers[.retryAfter], String(SubmissionAcceptance.retryAfterSeconds))
            XCTAssertTrue(refused.errorMessage?.contains("cannot check with the directory that bob is a technician") ?? false,
                          refused.text)
            try await assertStatus(.notFound, await client.get("/api/v1/submissions/\(ServerFixture.formID)", token: token))
            fixture.fakeDirectory.unreachable = false
            try await assertStatus(.created, await client.upload(try Self.upload(user: "bob"), token: token))
        }
    }

    /// A user found is remembered for a while: an upload of many forms asks the directory once.
    func testTheLookupIsCachedForAWhile() async throws {
        let directory = CountingDirectory()
        let clock = TestClock()
        let lookup = TechnicianLookup(directory: directory, now: { clock.now })
        for _ in 0..<5 { _ = try await lookup.user(named: "ana") }
        var missing = try await lookup.user(named: "nobody")
        XCTAssertNil(missing)
        missing = try await lookup.user(named: "nobody")
        XCTAssertNil(missing)
        XCTAssertEqual(directory.lookups, 2)
        clock.advance(by: TechnicianLookup.missingSeconds + 1)
        missing = try await lookup.user(named: "nobody")
        XCTAssertNil(missing)
        var found = try await lookup.user(named: "ana")
        XCTAssertNotNil(found)
        XCTAssertEqual(directory.lookups, 3, "the one not found is asked again sooner than the one found")
        clock.advance(by: TechnicianLookup.foundSeconds)
        found = try await lookup.user(named: "ana")
        XCTAssertEqual(found?.userName, "ana")
        XCTAssertEqual(directory.lookups, 4)
    }
}

/// `FakeDirectory`'s users, counting lookups.
private final class CountingDirectory: DirectoryService, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var lookups: Int { lock.withLock { count } }

    func authenticate(user: String, password: String) throws -> DirectoryUser { throw DirectoryError.wrongUserNameOrPassword }
    func lookup(user: String) throws -> DirectoryUser? {
        lock.withLock { count += 1 }
        return FakeDirectory.users.first { $0.userName == user }
    }
    func listUsers() throws -> [DirectoryUser] { FakeDirectory.users }
}
