import Foundation
import MIKit
import GRDB
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import TestSupport
import XCTest

final class UploadTests: XCTestCase {
    private func rowCount(_ fixture: ServerFixture) throws -> Int {
        let queue = try DatabaseQueue(path: fixture.layout.database.path)
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? -1 }
    }

    func testUploadIsStoredWithAReceiptOfEveryPart() async throws {
        let fixture = try ServerFixture()
        let form = try ServerFixture.formData()
        let upload = try ServerFixture.upload(formData: form)
        let now = fixture.clock.now
        let receipt = try await fixture.test { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(upload, token: token)
            XCTAssertEqual(response.status, .created, response.text)
            XCTAssertEqual(response.headers[.contentType], "application/json; charset=utf-8")
            return try response.receipt()
        }
        XCTAssertEqual(receipt.id.description, "6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f")
        XCTAssertEqual(receipt.user, "ana")
        XCTAssertEqual(receipt.formName, "pump-1")
        XCTAssertEqual(receipt.uploadedBy, "fiona")
        XCTAssertEqual(receipt.receivedAt, now)
        XCTAssertEqual(receipt.parts, [
            Receipt.Part(name: "form", filename: "form.json", size: Int64(form.count), sha256: ServerFixture.sha256(form)),
        ] + ServerFixture.media.keys.sorted().map { name in
            let data = ServerFixture.media[name] ?? Data()
            return Receipt.Part(name: name, filename: name, size: Int64(data.count), sha256: ServerFixture.sha256(data))
        })
        let folder = fixture.layout.submission(receipt.id)
        XCTAssertEqual(Files.names(in: folder), ["Qid0(1).jpg", "Qid6(1).mp4", "form.json"])
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("form.json")), form)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("Qid6(1).mp4")), ServerFixture.media["Qid6(1).mp4"])
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        XCTAssertEqual(try rowCount(fixture), 1)
    }

    func testIdenticalRetryReturnsTheStoredReceiptOnce() async throws {
        let fixture = try ServerFixture()
        let upload = try ServerFixture.upload()
        let clock = fixture.clock
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let first = try await client.upload(upload, token: token)
            XCTAssertEqual(first.status, .created)
            clock.advance(by: 90)
            let second = try await client.upload(upload, token: token)
            XCTAssertEqual(second.status, .ok, second.text)
            XCTAssertEqual(try second.receipt(), try first.receipt(), "the stored receipt, with the first receivedAt")
            // The same bytes in a new multipart envelope (another boundary) are the same content.
            var rewrapped = upload
            rewrapped.boundary = "another-boundary"
            try await assertStatus(.ok, await client.upload(rewrapped, token: token))
        }
        XCTAssertEqual(try rowCount(fixture), 1)
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        XCTAssertEqual(Files.names(in: fixture.layout.submissions), ["6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f"])
    }

    func testConcurrentIdenticalUploadsStoreOneSubmission() async throws {
        let fixture = try ServerFixture()
        let upload = try ServerFixture.upload()
        let statuses = try await fixture.test { client in
            let token = try await client.login("fiona")
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { Int(try await client.upload(upload, token: token).status.code) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        XCTAssertEqual(statuses.sorted(), [200, 200, 200, 200, 200, 201])
        XCTAssertEqual(try rowCount(fixture), 1)
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
    }

    func testDifferentContentUnderTheSameIdIs409() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: token))
            let changedForm = try ServerFixture.upload(formData: try ServerFixture.formData(note: "changed"))
            let response = try await client.upload(changedForm, token: token)
            XCTAssertEqual(response.status, .conflict, response.text)
            XCTAssertNotNil(response.errorMessage)
            var media = ServerFixture.media
            media["Qid0(1).jpg"] = Data("other picture".utf8)
            try await assertStatus(.conflict, await client.upload(try ServerFixture.upload(media: media), token: token))
        }
        XCTAssertEqual(try rowCount(fixture), 1)
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        let stored = fixture.layout.submission(ServerFixture.formID)
        XCTAssertEqual(try Data(contentsOf: stored.appendingPathComponent("Qid0(1).jpg")), ServerFixture.media["Qid0(1).jpg"])
    }

    func testMissingAndExtraMediaPartsAre400NamingThem() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            var media = ServerFixture.media
            media["Qid6(1).mp4"] = nil
            var response = try await client.upload(try ServerFixture.upload(media: media), token: token)
            XCTAssertEqual(response.status, .badRequest)
            XCTAssertTrue(response.errorMessage?.contains("missing Qid6(1).mp4") ?? false, response.text)

            media = ServerFixture.media
            media["Qid3(1).png"] = Data("extra".utf8)
            response = try await client.upload(try ServerFixture.upload(media: media), token: token)
            XCTAssertEqual(response.status, .badRequest)
            XCTAssertTrue(response.errorMessage?.contains("not listed in form.json: Qid3(1).png") ?? false, response.text)

            // A part name that cannot be a file name.
            media = ServerFixture.media
            media["../escape.jpg"] = Data("x".utf8)
            response = try await client.upload(try ServerFixture.upload(media: media), token: token)
            XCTAssertEqual(response.status, .badRequest)

            // The same media twice.
            var twice = try ServerFixture.upload()
            twice.add(media: "Qid0(1).jpg", data: Data("again".utf8))
            response = try await client.upload(twice, token: token)
            XCTAssertEqual(response.status, .badRequest)
            XCTAssertTrue(response.errorMessage?.contains("twice") ?? false, response.text)
        }
        XCTAssertEqual(try rowCount(fixture), 0)
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        XCTAssertEqual(Files.names(in: fixture.layout.submissions), [])
    }

    func testBodyOverTheLimitWithContentLengthIs413NamingTheLimit() async throws {
        let fixture = try ServerFixture([.set("Server.MaxUploadBytes", 20_000)])
        try await fixture.test { client in
            let token = try await client.login("fiona")
            var media = ServerFixture.media
            media["Qid0(1).jpg"] = Data(repeating: 7, count: 30_000)
            let response = try await client.upload(try ServerFixture.upload(media: media), token: token)
            XCTAssertEqual(response.status, .contentTooLarge)
            XCTAssertTrue(response.errorMessage?.contains("is larger than the server's limit of 20000 bytes") ?? false, response.text)
        }
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
    }

    func testMalformedMultipartIs400() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let upload = try ServerFixture.upload()
            let bodies: [(String, Data)] = [
                (upload.contentType, Data("no boundary anywhere".utf8)),
                (upload.contentType, upload.data.prefix(upload.data.count / 2)),
                (upload.contentType, Data("--\(upload.boundary)\r\nContent-Disposition: form-data; name=\"form\"\r\n\r\n".utf8)),
                (upload.contentType, Data("--\(upload.boundary)\r\nNo Colon Here\r\n\r\nx\r\n--\(upload.boundary)--\r\n".utf8)),
                (upload.contentType, Data("--\(upload.boundary)\r\nContent-Type: text/plain\r\n\r\nx\r\n--\(upload.boundary)--\r\n".utf8)),
                ("multipart/form-data", upload.data),
                ("application/json", upload.data),
            ]
            for (contentType, body) in bodies {
                let response = try await client.execute(
                    uri: "/api/v1/submissions", method: .post,
                    headers: [.authorization: "Bearer \(token)", .contentType: contentType],
                    body: ByteBuffer(bytes: body)) { $0 }
                XCTAssertEqual(response.status, .badRequest, "\(contentType): \(String(decoding: body.prefix(80), as: UTF8.self))")
                XCTAssertNotNil(response.errorMessage)
            }
        }
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        XCTAssertEqual(try rowCount(fixture), 0)
    }

    func testFormPartThatIsNotAFormOrMissingIs400() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            var body = MultipartBody()
            body.add(form: Data(#"{"hello": "world"}"#.utf8))
            var response = try await client.upload(body, token: token)
            XCTAssertEqual(response.status, .badRequest)
            XCTAssertTrue(response.errorMessage?.contains("not a valid form.json") ?? false, response.text)

            body = MultipartBody()
            body.add(form: Data("\u{0}\u{1}binary".utf8))
            try await assertStatus(.badRequest, await client.upload(body, token: token))

            body = MultipartBody()
            for (name, data) in ServerFixture.media { body.add(media: name, data: data) }
            response = try await client.upload(body, token: token)
            XCTAssertEqual(response.status, .badRequest)
            XCTAssertTrue(response.errorMessage?.contains("comes before the \"form\" part, or there is none") ?? false, response.text)
        }
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
    }

    func testReceiptsCanBeReadBackAndListedNewestFirst() async throws {
        let fixture = try ServerFixture()
        let clock = fixture.clock
        let secondID = FormID()
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            let technician = try await client.login("ana")
            let first = try await client.upload(try ServerFixture.upload(), token: foreman)
            XCTAssertEqual(first.status, .created)
            clock.advance(by: 60)
            let second = try await client.upload(try ServerFixture.upload(formData: try ServerFixture.formData(id: secondID)), token: foreman)
            XCTAssertEqual(second.status, .created)

            let id = try first.receipt().id
            for token in [foreman, technician] {
                let response = try await client.get("/api/v1/submissions/\(id)", token: token)
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try response.receipt(), try first.receipt())
            }
            // Upper-case ids name the same submission.
            try await assertStatus(.ok, await client.get("/api/v1/submissions/\(id.description.uppercased())", token: technician))
            for unknown in [UUID().uuidString, "not-a-uuid", "..%2F..%2Fsigning.key"] {
                let response = try await client.get("/api/v1/submissions/\(unknown)", token: foreman)
                XCTAssertEqual(response.status, .notFound, unknown)
                XCTAssertNotNil(response.errorMessage)
            }
            let list = try await client.get("/api/v1/submissions", token: foreman)
            XCTAssertEqual(list.status, .ok)
            let ids = try XCTUnwrap((list.json as? [String: Any])?["submissions"] as? [[String: Any]]).map { $0["id"] as? String }
            XCTAssertEqual(ids, [secondID.description, id.description])
        }
    }
}
