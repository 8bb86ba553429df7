import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The tus 1.0.0 endpoint over a real socket (`.live`), as the resumable client meets it.
final class ResumableUploadTests: XCTestCase {
    static let uploads = "/api/v1/uploads"
    static let formID = ServerFixture.formID.description
    static let content: Data = {
        var bytes = [UInt8](repeating: 0, count: 300_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index * 7 + index / 1000) }
        return Data(bytes)
    }()

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    static func checksum(_ data: Data) -> String { "sha256 " + Data(SHA256.hash(data: data)).base64EncodedString() }

    /// The upload's id from a creation response's Location.
    static func id(_ response: TestResponse, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let location = try XCTUnwrap(response.headers[.location], response.text, file: file, line: line)
        XCTAssertTrue(location.hasPrefix(uploads + "/"), location, file: file, line: line)
        return String(location.dropFirst(uploads.count + 1))
    }

    // MARK: - Discovery, creation, status

    func testOptionsDescribesTheEndpointWithoutAToken() async throws {
        let fixture = try ServerFixture([.set("Server.MaxUploadBytes", 5_000_000)])
        try await fixture.test(.live) { client in
            let response = try await client.execute(uri: Self.uploads, method: .options, headers: [:]) { $0 }
            XCTAssertEqual(response.status, .noContent, response.text)
            XCTAssertEqual(response.headers[.tusResumable], "1.0.0")
            XCTAssertEqual(response.headers[.tusVersion], "1.0.0")
            XCTAssertEqual(response.headers[.tusExtension], "creation,checksum,expiration,termination")
            XCTAssertEqual(response.headers[.tusChecksumAlgorithm], "crc32c,sha1,sha256")
            XCTAssertEqual(response.headers[.tusMaxSize], "5000000")
        }
    }

    func testUploadInThreeChunksHoldsTheWholeFile() async throws {
        let fixture = try ServerFixture()
        let content = Self.content
        let created = fixture.clock.now
        let id = try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let creation = try await client.createUpload(token: token, length: content.count)
            XCTAssertEqual(creation.status, .created, creation.text)
            XCTAssertEqual(creation.headers[.tusResumable], "1.0.0")
            XCTAssertEqual(creation.headers[.uploadExpires], ResumableUploadController.httpDate(created.addingTimeInterval(24 * 3600)))
            XCTAssertEqual(creation.headers[.uploadExpires], "Tue, 03 Mar 2026 09:00:00 GMT")
            let id = try Self.id(creation)
            XCTAssertEqual(ResumableUploads.canonicalID(id), id, "a lowercase UUID")

            var head = try await client.tus(.head, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.headers[.uploadOffset], "0")
            XCTAssertEqual(head.headers[.uploadLength], String(content.count))
            XCTAssertEqual(head.headers[.cacheControl], "no-store")
            XCTAssertEqual(head.headers[.tusResumable], "1.0.0")
            XCTAssertNotNil(head.headers[.uploadExpires])

            let cuts = [0, 100_000, 250_000, content.count]
            for index in 0..<3 {
                let chunk = content[cuts[index]..<cuts[index + 1]]
                // The middle chunk goes without a checksum (it is optional).
                let response = try await client.patch(id, token: token, offset: cuts[index], body: Data(chunk),
                                                      checksum: index == 1 ? nil : Self.checksum(Data(chunk)))
                XCTAssertEqual(response.status, .noContent, response.text)
                XCTAssertEqual(response.headers[.uploadOffset], String(cuts[index + 1]))
                XCTAssertEqual(response.headers[.tusResumable], "1.0.0")
                XCTAssertEqual(response.headers[.uploadExpires], "Tue, 03 Mar 2026 09:00:00 GMT")
            }
            head = try await client.tus(.head, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(head.headers[.uploadOffset], String(content.count))
            return id
        }
        let folder = fixture.layout.uploads.appendingPathComponent(id)
        XCTAssertEqual(Files.names(in: folder), ["data", "info.json"])
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("data")), content)
        let info = try WireJSON.decoder().decode(ResumableUploadInfo.self, from: Data(contentsOf: folder.appendingPathComponent("info.json")))
        XCTAssertEqual(info, ResumableUploadInfo(formID: Self.formID, name: "Qid6(1).mp4", length: Int64(content.count),
                                                 owner: "fiona", created: created, expires: created.addingTimeInterval(24 * 3600)))
    }

    func testCreationIsRefusedWithTheDocumentedStatus() async throws {
        let fixture = try ServerFixture([.set("Server.MaxUploadBytes", 1000)])
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let over = try await client.createUpload(token: token, length: 1001)
            XCTAssertEqual(over.status, .contentTooLarge)
            XCTAssertTrue(over.errorMessage?.contains("larger than the server's limit of 1000 bytes") ?? false, over.text)
            XCTAssertEqual(over.headers[.tusResumable], "1.0.0")
            try await assertStatus(.created, await client.createUpload(token: token, length: 1000))

            let form = "form \(Self.base64(Self.formID))"
            let badRequests: [HTTPFields] = [
                [.uploadMetadata: "\(form),name \(Self.base64("a.jpg"))"],
                [.uploadLength: "0", .uploadMetadata: "\(form),name \(Self.base64("a.jpg"))"],
                [.uploadLength: "-5", .uploadMetadata: "\(form),name \(Self.base64("a.jpg"))"],
                [.uploadLength: "12abc", .uploadMetadata: "\(form),name \(Self.base64("a.jpg"))"],
                [.uploadLength: "10"],
                [.uploadLength: "10", .uploadMetadata: "name \(Self.base64("a.jpg"))"],
                [.uploadLength: "10", .uploadMetadata: form],
                [.uploadLength: "10", .uploadMetadata: "form \(Self.base64("not-a-uuid")),name \(Self.base64("a.jpg"))"],
                [.uploadLength: "10", .uploadMetadata: "\(form),name \(Self.base64("../escape.jpg"))"],
                [.uploadLength: "10", .uploadMetadata: "\(form),name \(Self.base64("form.json"))"],
                [.uploadLength: "10", .uploadMetadata: "\(form),name %%%"],
                [.uploadLength: "10", .uploadMetadata: "\(form),name \(Self.base64("a.jpg")),name \(Self.base64("b.jpg"))"],
            ]
            for headers in badRequests {
                let response = try await client.tus(.post, Self.uploads, token: token, headers: headers)
                XCTAssertEqual(response.status, .badRequest, "\(headers)")
                XCTAssertNotNil(response.errorMessage, "\(headers)")
            }
            // Creation with an upload is not supported.
            let withBody = try await client.tus(.post, Self.uploads, token: token, headers: [
                .uploadLength: "10", .uploadMetadata: "\(form),name \(Self.base64("a.jpg"))",
                .contentType: "application/offset+octet-stream",
            ], body: Data("0123456789".utf8))
            XCTAssertEqual(withBody.status, .badRequest, withBody.text)

            let technician = try await client.login("ana")
            let forbidden = try await client.createUpload(token: technician, length: 10)
            XCTAssertEqual(forbidden.status, .forbidden)
            XCTAssertEqual(forbidden.headers[.tusResumable], "1.0.0")
            let unauthorized = try await client.tus(.post, Self.uploads, token: nil, headers: [.uploadLength: "10"])
            XCTAssertEqual(unauthorized.status, .unauthorized)
            XCTAssertEqual(unauthorized.headers[.tusResumable], "1.0.0")
        }
        XCTAssertEqual(Files.names(in: fixture.layout.uploads).count, 1, "only the upload of exactly the limit")
    }

    func testRequestsWithoutTusResumableAre412() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 10))
            let path = "\(Self.uploads)/\(id)"
            let requests: [(HTTPRequest.Method, String, HTTPFields)] = [
                (.post, Self.uploads, [.uploadLength: "10", .uploadMetadata: "form \(Self.base64(Self.formID)),name \(Self.base64("a.jpg"))"]),
                (.head, path, [:]),
                (.patch, path, [.uploadOffset: "0", .contentType: "application/offset+octet-stream"]),
                (.delete, path, [:]),
                (.head, path, [.tusResumable: "0.2.2"]),
            ]
            for (method, uri, extra) in requests {
                var headers: HTTPFields = [.authorization: "Bearer \(token)"]
                headers.append(contentsOf: extra)
                let response = try await client.execute(uri: uri, method: method, headers: headers) { $0 }
                XCTAssertEqual(response.status, .preconditionFailed, "\(method) \(uri)")
                XCTAssertEqual(response.headers[.tusVersion], "1.0.0", "\(method)")
                XCTAssertEqual(response.headers[.tusResumable], "1.0.0", "\(method)")
                if method != .head { XCTAssertNotNil(response.errorMessage, "\(method)") }
            }
            let head = try await client.tus(.head, path, token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "0", "the upload is still there")
        }
    }

    // MARK: - PATCH

    func testWrongOffsetIs409WithTheCurrentOffset() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 100))
            try await assertStatus(.noContent, await client.patch(id, token: token, offset: 0, body: Data(repeating: 1, count: 40)))
            for offset in [0, 39, 41, 100] {
                let response = try await client.patch(id, token: token, offset: offset, body: Data(repeating: 2, count: 10))
                XCTAssertEqual(response.status, .conflict, "\(offset)")
                XCTAssertEqual(response.headers[.uploadOffset], "40")
                XCTAssertEqual(response.headers[.tusResumable], "1.0.0")
                XCTAssertNotNil(response.errorMessage)
            }
            let head = try await client.tus(.head, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "40")
        }
    }

    func testChecksumMismatchIs460AndKeepsNothing() async throws {
        let fixture = try ServerFixture()
        let id = try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 100))
            try await assertStatus(.noContent, await client.patch(id, token: token, offset: 0, body: Data(repeating: 1, count: 30),
                                                                  checksum: Self.checksum(Data(repeating: 1, count: 30))))
            let mismatch = try await client.patch(id, token: token, offset: 30, body: Data(repeating: 2, count: 30),
                                                  checksum: Self.checksum(Data(repeating: 3, count: 30)))
            XCTAssertEqual(mismatch.status.code, 460, mismatch.text)
            XCTAssertEqual(mismatch.headers[.tusResumable], "1.0.0")
            XCTAssertNotNil(mismatch.errorMessage)
            let head = try await client.tus(.head, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "30")

            for header in ["md5 \(Data(repeating: 0, count: 16).base64EncodedString())", "sha256", "sha256 !!!",
                           "sha256 \(Data(repeating: 0, count: 20).base64EncodedString())"] {
                let response = try await client.patch(id, token: token, offset: 30, body: Data(repeating: 2, count: 30), checksum: header)
                XCTAssertEqual(response.status, .badRequest, header)
            }
            // The same bytes with the right checksum go through after the refusals.
            try await assertStatus(.noContent, await client.patch(id, token: token, offset: 30, body: Data(repeating: 2, count: 30),
                                                                  checksum: Self.checksum(Data(repeating: 2, count: 30))))
            return id
        }
        let data = try Data(contentsOf: fixture.layout.uploads.appendingPathComponent("\(id)/data"))
        XCTAssertEqual(data, Data(repeating: 1, count: 30) + Data(repeating: 2, count: 30))
    }

    func testPatchPastTheLengthOrOfAnotherTypeIsRefusedAndKeepsNothing() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 50))
            try await assertStatus(.noContent, await client.patch(id, token: token, offset: 0, body: Data(repeating: 1, count: 20)))
            let past = try await client.patch(id, token: token, offset: 20, body: Data(repeating: 2, count: 31))
            XCTAssertEqual(past.status, .badRequest, past.text)
            XCTAssertTrue(past.errorMessage?.contains("past the upload's length of 50 bytes") ?? false, past.text)
            // A Content-Length past the length is refused before the body, even the largest one.
            let port = try XCTUnwrap(client.port)
            let early = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                connection.send("PATCH \(Self.uploads)/\(id) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                    + "Tus-Resumable: 1.0.0\r\nUpload-Offset: 20\r\nContent-Type: application/offset+octet-stream\r\n"
                    + "Content-Length: 9223372036854775807\r\nExpect: 100-continue\r\n\r\n")
                return try connection.readResponse()
            }
            XCTAssertEqual(early.status, 400, String(decoding: early.body, as: UTF8.self))
            XCTAssertTrue(String(decoding: early.body, as: UTF8.self).contains("past the upload's length of 50 bytes"))
            let wrongType = try await client.tus(.patch, "\(Self.uploads)/\(id)", token: token,
                                                 headers: [.uploadOffset: "20", .contentType: "application/octet-stream"],
                                                 body: Data(repeating: 2, count: 5))
            XCTAssertEqual(wrongType.status, .unsupportedMediaType, wrongType.text)
            let noOffset = try await client.tus(.patch, "\(Self.uploads)/\(id)", token: token,
                                                headers: [.contentType: "application/offset+octet-stream"], body: Data(repeating: 2, count: 5))
            XCTAssertEqual(noOffset.status, .badRequest, noOffset.text)
            let head = try await client.tus(.head, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "20")
        }
    }

    /// A chunked body (no Content-Length) that goes past the length is refused when it does.
    func testChunkedPatchPastTheLengthKeepsNothing() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 1000))
            let port = try XCTUnwrap(client.port)
            let response = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                connection.send("PATCH \(Self.uploads)/\(id) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                    + "Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<3 { connection.send("190\r\n" + String(repeating: "x", count: 400) + "\r\n") }
                connection.send("0\r\n\r\n")
                return try connection.readResponse()
            }
            XCTAssertEqual(response.status, 400, String(decoding: response.body, as: UTF8.self))
            let head = try await client.tus(.head, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "0")
        }
    }

    func testPatchCutOffMidBodyKeepsBytesWithoutChecksumAndDropsThemWithOne() async throws {
        let fixture = try ServerFixture()
        let content = Self.content
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: content.count))
            let port = try XCTUnwrap(client.port)
            let path = "\(Self.uploads)/\(id)"

            /// Sends a PATCH announcing the whole rest of the file but only `sent` bytes, then hangs up.
            func cutOff(from offset: Int, sent: Int, checksum: String?) async throws {
                try await RawHTTPConnection.run {
                    let connection = try RawHTTPConnection(port: port)
                    connection.send("PATCH \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                        + "Tus-Resumable: 1.0.0\r\nUpload-Offset: \(offset)\r\nContent-Type: application/offset+octet-stream\r\n"
                        + (checksum.map { "Upload-Checksum: \($0)\r\n" } ?? "")
                        + "Content-Length: \(content.count - offset)\r\nExpect: 100-continue\r\n\r\n")
                    // After the 100 the server holds the upload until it sees the cut.
                    XCTAssertEqual(try connection.readResponse().status, 100)
                    connection.send(Data(content[offset..<(offset + sent)]))
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }

            /// Waits until the server ended the cut PATCH: an empty PATCH at `offset` succeeds.
            func waitForOffset(_ offset: Int) async throws {
                let deadline = Date().addingTimeInterval(10)
                while true {
                    let response = try await client.patch(id, token: token, offset: offset, body: Data())
                    if response.status == .noContent { return }
                    guard Date() < deadline else {
                        XCTFail("the offset never became \(offset): \(response.status) \(response.headers[.uploadOffset] ?? "")")
                        return
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }

            try await cutOff(from: 0, sent: 120_000, checksum: nil)
            try await waitForOffset(120_000)
            var head = try await client.tus(.head, path, token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "120000", "without a checksum what arrived is kept")

            try await cutOff(from: 120_000, sent: 50_000, checksum: Self.checksum(Data(content[120_000...])))
            try await waitForOffset(120_000)
            head = try await client.tus(.head, path, token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "120000", "with a checksum nothing of the cut body is kept")

            try await assertStatus(.noContent, await client.patch(id, token: token, offset: 120_000, body: Data(content[120_000...]),
                                                                  checksum: Self.checksum(Data(content[120_000...]))))
        }
        let id = try XCTUnwrap(Files.names(in: fixture.layout.uploads).first)
        XCTAssertEqual(try Data(contentsOf: fixture.layout.uploads.appendingPathComponent("\(id)/data")), content)
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("stopped sending mid-body") })
    }

    func testConcurrentPatchOnTheSameUploadIs409() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 100))
            let port = try XCTUnwrap(client.port)
            let path = "\(Self.uploads)/\(id)"
            let connection = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                connection.send("PATCH \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                    + "Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\n"
                    + "Content-Length: 100\r\nExpect: 100-continue\r\n\r\n")
                // The 100 comes when the server starts reading the body, after it took the upload.
                XCTAssertEqual(try connection.readResponse().status, 100)
                connection.send(Data(repeating: 1, count: 50))
                return UncheckedBox(connection)
            }
            // The first PATCH holds the upload while its body is incomplete.
            let second = try await client.patch(id, token: token, offset: 0, body: Data(repeating: 2, count: 10))
            XCTAssertEqual(second.status, .conflict, second.text)
            XCTAssertTrue(second.errorMessage?.contains("another request is sending") ?? false, second.text)
            try await assertStatus(.conflict, await client.tus(.delete, path, token: token))
            let head = try await client.tus(.head, path, token: token)
            XCTAssertEqual(head.headers[.uploadOffset], "0", "the bytes of a PATCH under way are not counted yet")
            let first = try await RawHTTPConnection.run {
                connection.value.send(Data(repeating: 1, count: 50))
                return try connection.value.readResponse()
            }
            XCTAssertEqual(first.status, 204)
            XCTAssertEqual(first.headers["upload-offset"], "100")
        }
    }

    // MARK: - Owners, expiry, termination

    func testAnotherUsersUploadIs404() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 100))
            // Another foreman, with a token this server signed.
            let tokens = SessionTokens(keyBytes: [UInt8](try Data(contentsOf: fixture.layout.signingKey)), lifetime: 3600)
            let george = try tokens.sign(SessionClaims(sub: "george", role: .foreman, name: "George",
                                                       exp: Int64(fixture.clock.now.timeIntervalSince1970) + 3600))
            let path = "\(Self.uploads)/\(id)"
            let head = try await client.tus(.head, path, token: george)
            XCTAssertEqual(head.status, .notFound)
            XCTAssertEqual(head.headers[.tusResumable], "1.0.0")
            XCTAssertEqual(head.body.readableBytes, 0, "HEAD answers carry no body")
            try await assertStatus(.notFound, await client.patch(id, token: george, offset: 0, body: Data(repeating: 1, count: 10)))
            try await assertStatus(.notFound, await client.tus(.delete, path, token: george))
            // Unknown ids and ids that are no UUID are 404 as well.
            try await assertStatus(.notFound, await client.tus(.head, "\(Self.uploads)/\(UUID().uuidString.lowercased())", token: token))
            try await assertStatus(.notFound, await client.tus(.delete, "\(Self.uploads)/..%2Fsigning.key", token: token))
            let mine = try await client.tus(.head, path, token: token)
            XCTAssertEqual(mine.status, .ok)
            XCTAssertEqual(mine.headers[.uploadOffset], "0")
        }
    }

    func testExpiredUploadIs404AndRemoved() async throws {
        let fixture = try ServerFixture([.set("Server.ResumableExpiryHours", 2)])
        let clock = fixture.clock
        let (expired, fresh) = try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let expired = try Self.id(try await client.createUpload(token: token, length: 100))
            try await assertStatus(.noContent, await client.patch(expired, token: token, offset: 0, body: Data(repeating: 1, count: 10)))
            clock.advance(by: 3600)
            let token1 = try await client.login("fiona")
            let fresh = try Self.id(try await client.createUpload(token: token1, length: 100))
            clock.advance(by: 3601)
            let token2 = try await client.login("fiona")
            try await assertStatus(.notFound, await client.tus(.head, "\(Self.uploads)/\(expired)", token: token2))
            try await assertStatus(.notFound, await client.patch(expired, token: token2, offset: 10, body: Data(repeating: 1, count: 10)))
            try await assertStatus(.ok, await client.tus(.head, "\(Self.uploads)/\(fresh)", token: token2))
            return (expired, fresh)
        }
        XCTAssertEqual(Files.names(in: fixture.layout.uploads), [expired, fresh].sorted(), "nothing removed yet")
        // The next start removes it.
        _ = try await fixture.application()
        XCTAssertEqual(Files.names(in: fixture.layout.uploads), [fresh])
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("removed expired resumable uploads") }, "\(fixture.logs.messages)")
    }

    func testDeleteRemovesTheUpload() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try Self.id(try await client.createUpload(token: token, length: 100))
            try await assertStatus(.noContent, await client.patch(id, token: token, offset: 0, body: Data(repeating: 1, count: 10)))
            let deleted = try await client.tus(.delete, "\(Self.uploads)/\(id)", token: token)
            XCTAssertEqual(deleted.status, .noContent, deleted.text)
            XCTAssertEqual(deleted.headers[.tusResumable], "1.0.0")
            try await assertStatus(.notFound, await client.tus(.head, "\(Self.uploads)/\(id)", token: token))
            try await assertStatus(.notFound, await client.tus(.delete, "\(Self.uploads)/\(id)", token: token))
        }
        XCTAssertEqual(Files.names(in: fixture.layout.uploads), [])
    }
}

/// Moves a non-Sendable value between the test's task and a socket thread; one user at a time.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension TestClientProtocol {
    /// A tus request: `Tus-Resumable: 1.0.0` and the token (when given) plus `headers`.
    func tus(_ method: HTTPRequest.Method, _ uri: String, token: String?, headers: HTTPFields = [:],
             body: Data? = nil) async throws -> TestResponse {
        var fields: HTTPFields = [.tusResumable: "1.0.0"]
        if let token { fields[.authorization] = "Bearer \(token)" }
        fields.append(contentsOf: headers)
        return try await execute(uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(bytes: $0) }) { $0 }
    }

    func createUpload(token: String, length: Int, formID: String = ResumableUploadTests.formID,
                      name: String = "Qid6(1).mp4") async throws -> TestResponse {
        try await tus(.post, ResumableUploadTests.uploads, token: token, headers: [
            .uploadLength: String(length),
            .uploadMetadata: "form \(ResumableUploadTests.base64(formID)),name \(ResumableUploadTests.base64(name))",
        ])
    }

    func patch(_ id: String, token: String, offset: Int, body: Data, checksum: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.uploadOffset: String(offset), .contentType: "application/offset+octet-stream"]
        if let checksum { headers[.uploadChecksum] = checksum }
        return try await tus(.patch, "\(ResumableUploadTests.uploads)/\(id)", token: token, headers: headers, body: body)
    }
}

/// The endpoint as curl (libcurl, what `mi upload` uses) meets it.
final class ResumableUploadCurlTests: XCTestCase {
    func testCurlPatchIsAnswered100ContinueAndAChecksumMismatchIsNamed() async throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: CurlTests.curl), "curl is needed: apt-get install curl")
        let fixture = try ServerFixture([.set("Server.MaxUploadBytes", .integer(8 << 20))])
        let file = fixture.directory.path("Qid6(1).mp4")
        let content = Data((0..<(3 << 20)).map { UInt8($0 % 251) })
        try Files.write(content, to: file)
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let id = try ResumableUploadTests.id(try await client.createUpload(token: token, length: content.count))
            let url = "http://localhost:\(try XCTUnwrap(client.port))\(ResumableUploadTests.uploads)/\(id)"
            let common = ["-H", "Authorization: Bearer \(token)", "-H", "Tus-Resumable: 1.0.0"]
            let patch = common + ["-X", "PATCH", "-H", "Upload-Offset: 0", "-H", "Content-Type: application/offset+octet-stream",
                                  "--data-binary", "@\(file.path)"]

            let mismatch = try await CurlTests.run(patch + ["-H", "Upload-Checksum: \(ResumableUploadTests.checksum(Data("other".utf8)))", url])
            XCTAssertEqual(mismatch.status, 460, mismatch.trace)
            XCTAssertTrue(mismatch.trace.contains("< HTTP/1.1 100 Continue"), mismatch.trace)
            XCTAssertTrue(mismatch.trace.contains("< HTTP/1.1 460 Checksum Mismatch"), mismatch.trace)

            let head = try await CurlTests.run(common + ["-I", url])
            XCTAssertEqual(head.status, 200, head.trace)
            XCTAssertTrue(head.trace.lowercased().contains("< upload-offset: 0"), head.trace)

            let accepted = try await CurlTests.run(patch + ["-H", "Upload-Checksum: \(ResumableUploadTests.checksum(content))", url])
            XCTAssertEqual(accepted.status, 204, accepted.trace)
            XCTAssertTrue(accepted.trace.lowercased().contains("< upload-offset: \(content.count)"), accepted.trace)

            // A refusal before the body: no 100 Continue, the final status at once.
            let conflict = try await CurlTests.run(patch + [url])
            XCTAssertEqual(conflict.status, 409, conflict.trace)
            XCTAssertFalse(conflict.trace.contains("100 Continue"), conflict.trace)

            let missing = try await CurlTests.run(common + ["-I", "\(url.dropLast(4))0000"])
            XCTAssertEqual(missing.status, 404, missing.trace)
        }
        let id = try XCTUnwrap(Files.names(in: fixture.layout.uploads).first)
        XCTAssertEqual(try Data(contentsOf: fixture.layout.uploads.appendingPathComponent("\(id)/data")), content)
    }
}
