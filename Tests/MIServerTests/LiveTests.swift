import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import TestSupport
import XCTest

/// Over a real socket: the server as libcurl meets it.
final class LiveTests: XCTestCase {
    func testUploadOverHTTP() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            try await assertStatus(.ok, await client.get("/health", token: nil))
            let token = try await client.login("fiona")
            let response = try await client.upload(try ServerFixture.upload(), token: token)
            XCTAssertEqual(response.status, .created, response.text)
            let receipt = try response.receipt()
            try await assertStatus(.ok, await client.get("/api/v1/submissions/\(receipt.id)", token: token))
        }
    }

    func testExpectContinueIsAnsweredBeforeTheBody() async throws {
        let fixture = try ServerFixture()
        let upload = try ServerFixture.upload()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let port = try XCTUnwrap(client.port)
            let (interim, final) = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                let body = upload.data
                connection.send("POST /api/v1/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: \(upload.contentType)\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
                let interim = try connection.readResponse()
                connection.send(body)
                return (interim.status, try connection.readResponse().status)
            }
            XCTAssertEqual(interim, 100)
            XCTAssertEqual(final, 201)
        }
    }

    func testExpectContinueOverTheLimitGets413InsteadOf100() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let port = try XCTUnwrap(client.port)
            let (response, closed) = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                connection.send("POST /api/v1/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
                let response = try connection.readResponse()
                return (response, connection.isClosedByPeer())
            }
            XCTAssertEqual(response.status, 413)
            let message = String(decoding: response.body, as: UTF8.self)
            XCTAssertTrue(message.contains("(5000000 bytes) is larger than the server's limit of 1048576 bytes"), message)
            XCTAssertTrue(closed, "no body was sent, so the connection ends with the answer")
        }
    }

    func testChunkedBodyOverTheLimitIs413() async throws {
        let fixture = try ServerFixture()
        let form = try ServerFixture.formData()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let port = try XCTUnwrap(client.port)
            let response = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                connection.send("POST /api/v1/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n")
                var body = Data("--b\r\nContent-Disposition: form-data; name=\"form\"; filename=\"form.json\"\r\n\r\n".utf8)
                body.append(form)
                body.append(Data("\r\n--b\r\nContent-Disposition: form-data; name=\"Qid0(1).jpg\"; filename=\"Qid0(1).jpg\"\r\n\r\n".utf8))
                body.append(Data(repeating: 1, count: 2 << 20))
                var offset = 0
                while offset < body.count {
                    let chunk = body[offset..<min(offset + 65536, body.count)]
                    guard connection.send(Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8)) else { break }
                    offset += chunk.count
                }
                connection.send("0\r\n\r\n")
                return try connection.readResponse()
            }
            XCTAssertEqual(response.status, 413)
            let message = String(decoding: response.body, as: UTF8.self)
            XCTAssertTrue(message.contains("is larger than the server's limit of 1048576 bytes"), message)
        }
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
        XCTAssertEqual(Files.names(in: fixture.layout.submissions), [])
    }
}
