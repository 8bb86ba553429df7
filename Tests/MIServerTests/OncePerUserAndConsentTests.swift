import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The server's half of once per user (409 `once-per-user`, decided by the `once_per_user`
/// table's unique key) and of consent (422 `consent-required`).
final class OncePerUserAndConsentTests: XCTestCase {
    static let consent = "Acepto participar."

    /// A completed form of a once-per-user template with a consent text; accepted unless
    /// `sha256` says otherwise ("" = no acceptance).
    static func formData(id: FormID = FormID(), name: String = "c1", user: String = "ana", version: Int = 1,
                         sha256: String? = nil, simulated: Bool = false) throws -> Data {
        let template = Template(id: "cohort", title: "Cohorte", version: version,
                                questions: [Question(id: "edad", text: "Edad", kind: .shortAnswer)],
                                oncePerUser: true, consent: consent)
        var form = Form(id: id, name: name, user: user, template: template, createdAt: TestClock.start)
        form.status = .completed
        form.submittedAt = TestClock.start.addingTimeInterval(600)
        form.answers["edad"] = Answer(value: .text("71"))
        let digest = sha256 ?? template.consentDigest ?? ""
        if !digest.isEmpty { form.consent = ConsentAcceptance(by: user, at: TestClock.start, sha256: digest) }
        if simulated { form.record(AuditEvent(at: TestClock.start, by: user, action: .simulated)) }
        return try FormFile.encode(form)
    }

    private static func upload(_ data: Data) throws -> MultipartBody { try ServerFixture.upload(formData: data, media: [:]) }

    /// A server that publishes `cohort` v1 (with its consent): the server stores forms of the
    /// templates it has only.
    private static func fixture(_ edits: [ConfigEdit] = []) throws -> ServerFixture {
        let fixture = try ServerFixture(edits)
        let template = Template(id: "cohort", title: "Cohorte", version: 1,
                                questions: [Question(id: "edad", text: "Edad", kind: .shortAnswer)],
                                oncePerUser: true, consent: consent)
        try TemplateCoding().encodeData(template).write(to: fixture.templates.appendingPathComponent("cohort.json"))
        return fixture
    }

    private static func code(_ response: TestResponse) -> String? {
        ((response.json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }

    private func onceRows(_ fixture: ServerFixture) throws -> [[String]] {
        try DatabaseQueue(path: fixture.layout.database.path).read { db in
            try Row.fetchAll(db, sql: "SELECT template_id, technician, submission_id FROM once_per_user ORDER BY technician")
                .map { [$0["template_id"], $0["technician"], $0["submission_id"]] }
        }
    }

    func testASecondFormOfTheTemplateByTheSameUserIs409NamingTheFirst() async throws {
        let fixture = try Self.fixture()
        let first = FormID()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try Self.upload(try Self.formData(id: first, name: "primero")), token: token))
            // Another version of the template is the same template.
            let second = try await client.upload(try Self.upload(try Self.formData(name: "segundo", version: 2)), token: token)
            XCTAssertEqual(second.status, .conflict, second.text)
            XCTAssertEqual(Self.code(second), "once-per-user")
            let message = second.errorMessage ?? ""
            XCTAssertTrue(message.contains("form primero (id \(first.description)), submitted 2026-03-02"), message)
            XCTAssertTrue(message.contains("ana already has"), message)
            // The first, re-uploaded, is still the same submission; another user is free.
            try await assertStatus(.ok, await client.upload(try Self.upload(try Self.formData(id: first, name: "primero")), token: token))
            try await assertStatus(.created, await client.upload(try Self.upload(try Self.formData(name: "c1", user: "luis")), token: token))
        }
        XCTAssertEqual(try onceRows(fixture), [["cohort", "ana", first.description], ["cohort", "luis", try onceRows(fixture)[1][2]]])
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        XCTAssertEqual(Files.names(in: fixture.layout.submissions).count, 2, "the refused form left no files")
    }

    func testRacingUploadsOfTwoFormsStoreOne() async throws {
        let fixture = try Self.fixture()
        let bodies = try (1...6).map { try Self.upload(try Self.formData(name: "c\($0)")) }
        let statuses = try await fixture.test { client in
            let token = try await client.login("fiona")
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for body in bodies { group.addTask { Int(try await client.upload(body, token: token).status.code) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        XCTAssertEqual(statuses.sorted(), [201, 409, 409, 409, 409, 409])
        XCTAssertEqual(try onceRows(fixture).count, 1)
        XCTAssertEqual(Files.names(in: fixture.layout.submissions).count, 1)
    }

    func testSimulatedFormsAreNotBoundByOncePerUser() async throws {
        let fixture = try Self.fixture([.set("Server.AcceptSimulated", true)])
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try Self.upload(try Self.formData(name: "s1", simulated: true)), token: token))
            try await assertStatus(.created, await client.upload(try Self.upload(try Self.formData(name: "s2", simulated: true)), token: token))
            try await assertStatus(.created, await client.upload(try Self.upload(try Self.formData(name: "real")), token: token))
        }
        XCTAssertEqual(try onceRows(fixture).count, 1)
    }

    func testAFormWithoutTheConsentOrWithAnotherTextsIs422() async throws {
        let fixture = try Self.fixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let missing = try await client.upload(try Self.upload(try Self.formData(sha256: "")), token: token)
            XCTAssertEqual(missing.status, .unprocessableContent, missing.text)
            XCTAssertEqual(Self.code(missing), "consent-required")
            XCTAssertTrue(missing.errorMessage?.contains("it has no acceptance") == true, missing.text)
            let forged = try await client.upload(try Self.upload(try Self.formData(sha256: String(repeating: "a", count: 64))), token: token)
            XCTAssertEqual(forged.status, .unprocessableContent, forged.text)
            XCTAssertEqual(Self.code(forged), "consent-required")
            XCTAssertTrue(forged.errorMessage?.contains("another text (SHA-256 \(String(repeating: "a", count: 64)))") == true, forged.text)
            // Other errors keep the plain body.
            let other = try await client.upload(try Self.upload(Data("{}".utf8)), token: token)
            XCTAssertEqual(other.status, .badRequest)
            XCTAssertNil(Self.code(other))
        }
        XCTAssertEqual(Files.names(in: fixture.layout.submissions), [])
        XCTAssertEqual(try onceRows(fixture), [])
    }

    /// The server publishes `cohort` v1 with its consent; a form whose copy of the template
    /// dropped or reworded the text (and accepted that) is refused: the published text decides.
    func testTheAcceptanceMustBeForTheTextTheServerPublished() async throws {
        let fixture = try ServerFixture()
        let published = Template(id: "cohort", title: "Cohorte", version: 1,
                                 questions: [Question(id: "edad", text: "Edad", kind: .shortAnswer)],
                                 oncePerUser: true, consent: Self.consent)
        try TemplateCoding().encodeData(published).write(to: fixture.templates.appendingPathComponent("cohort.json"))
        @Sendable func form(consent: String?) throws -> Data {
            var template = published
            template.consent = consent
            var form = Form(name: "c1", user: "ana", template: template, createdAt: TestClock.start)
            form.status = .completed
            form.submittedAt = TestClock.start.addingTimeInterval(600)
            form.answers["edad"] = Answer(value: .text("71"))
            if let digest = template.consentDigest { form.consent = ConsentAcceptance(by: "ana", at: TestClock.start, sha256: digest) }
            return try FormFile.encode(form)
        }
        let publishedDigest = try XCTUnwrap(published.consentDigest)
        try await fixture.test { client in
            let token = try await client.login("fiona")
            for consent in [nil, "Acepto que no hay riesgos."] {
                let response = try await client.upload(try Self.upload(try form(consent: consent)), token: token)
                XCTAssertEqual(response.status, .unprocessableContent, response.text)
                XCTAssertEqual(Self.code(response), "consent-required")
                XCTAssertTrue(response.errorMessage?.contains(publishedDigest) == true, response.text)
            }
            let accepted = try await client.upload(try Self.upload(try form(consent: Self.consent)), token: token)
            XCTAssertEqual(accepted.status, .created, accepted.text)
        }
        XCTAssertEqual(Files.names(in: fixture.layout.submissions).count, 1)
    }
}
