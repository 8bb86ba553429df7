import Foundation
import NIOCore
@testable import MIServer
import XCTest

final class MultipartStreamParserTests: XCTestCase {
    final class Recorder: MultipartStreamHandler {
        var parts: [(headers: [String: String], body: Data)] = []
        var open = false

        func partBegins(headers: [(name: String, value: String)]) throws {
            XCTAssertFalse(open)
            open = true
            parts.append((Dictionary(headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 }), Data()))
        }

        func partBody(_ bytes: UnsafeRawBufferPointer) throws {
            XCTAssertTrue(open)
            parts[parts.count - 1].body.append(contentsOf: bytes)
        }

        func partEnds() throws {
            XCTAssertTrue(open)
            open = false
        }
    }

    static let tricky = Data("a\r\n--bound\r\n-\r\n-- \r\r\n\r\n\r\n--boun".utf8) + Data([0, 13, 10, 45, 45])

    static var body: Data {
        var body = Data("preamble, ignored\r\n--boundary\r\n".utf8)
        body.append(Data("Content-Disposition: form-data; name=\"form\"; filename=\"form.json\"\r\nContent-Type: application/json\r\n\r\n".utf8))
        body.append(Data(#"{"id": 1}"#.utf8))
        body.append(Data("\r\n--boundary  \r\nContent-Disposition: form-data; name=\"Qid0(1).jpg\"\r\n\r\n".utf8))
        body.append(tricky)
        body.append(Data("\r\n--boundary\r\n\r\n\r\n--boundary--\r\nepilogue, ignored".utf8))
        return body
    }

    private func parse(_ data: Data, chunk: Int) throws -> Recorder {
        let parser = MultipartStreamParser(boundary: "boundary")
        let recorder = Recorder()
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            try parser.feed(ByteBuffer(bytes: data[offset..<end]), to: recorder)
            offset = end
        }
        try parser.finish()
        return recorder
    }

    func testPartsAreTheSameWhereverTheBodyIsSplit() throws {
        for chunk in [1, 2, 3, 5, 7, 11, 13, 64, 4096] {
            let recorder = try parse(Self.body, chunk: chunk)
            XCTAssertEqual(recorder.parts.count, 3, "chunk \(chunk)")
            XCTAssertEqual(recorder.parts.first?.headers["content-disposition"], #"form-data; name="form"; filename="form.json""#)
            XCTAssertEqual(recorder.parts.first?.headers["content-type"], "application/json")
            XCTAssertEqual(recorder.parts.first?.body, Data(#"{"id": 1}"#.utf8), "chunk \(chunk)")
            XCTAssertEqual(recorder.parts.dropFirst().first?.body, Self.tricky, "chunk \(chunk)")
            XCTAssertEqual(recorder.parts.last?.headers, [:])
            XCTAssertEqual(recorder.parts.last?.body, Data())
            XCTAssertFalse(recorder.open)
        }
    }

    func testTruncatedBodiesAreRefused() throws {
        let body = Self.body
        let closing = try XCTUnwrap(body.range(of: Data("--boundary--".utf8)))
        for length in [0, 10, 40, 100, body.count / 2, closing.lowerBound, closing.lowerBound + 11] {
            XCTAssertThrowsError(try parse(body.prefix(length), chunk: 7), "length \(length)") { error in
                XCTAssertTrue(error is MultipartSyntaxError)
            }
        }
        XCTAssertNoThrow(try parse(body.prefix(closing.upperBound), chunk: 7))
    }

    func testMalformedHeadersAreRefused() {
        for headers in ["No Colon Here", ": no name", "Bad Name: x", String(repeating: "X-Long: aaaaaaaa\r\n", count: 2000)] {
            let body = Data("--boundary\r\n\(headers)\r\n\r\nx\r\n--boundary--\r\n".utf8)
            XCTAssertThrowsError(try parse(body, chunk: 1000), headers.prefix(20).description)
        }
        XCTAssertThrowsError(try parse(Data("--boundary junk\r\n\r\nx\r\n--boundary--".utf8), chunk: 3))
    }
}
