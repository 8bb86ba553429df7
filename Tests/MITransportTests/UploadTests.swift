import Foundation
import MIKit
import TestSupport
import XCTest
@testable import MITransport

/// Multipart uploads: parts intact, streamed from disk, idempotent, refused when the answer is not a receipt.
final class UploadTests: XCTestCase {
    private var server: TestServer!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        server = try TestServer()
        directory = try TemporaryDirectory(prefix: "upload")
    }

    override func tearDown() {
        server?.stop()
        server = nil
        directory = nil
    }

    private func client(_ user: String = "fred", retry: RetryPolicy = RetryPolicy(attempts: 2, initialDelay: 0.01))
        throws -> ServerClient {
        let client = ServerClient(server: try server.configuration(), retry: retry)
        _ = try client.createSession(user: user, password: "secret")
        return client
    }

    private func assertReceipt(_ receipt: Receipt, matches files: [UploadPart],
                               file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(receipt.parts.map(\.name), files.map(\.name), file: file, line: line)
        for upload in files {
            let local = try FileDigest.sha256(of: upload.file)
            let part = try XCTUnwrap(receipt.part(named: upload.name), file: file, line: line)
            XCTAssertEqual(part.sha256, local.hex, upload.name, file: file, line: line)
            XCTAssertEqual(part.size, local.size, upload.name, file: file, line: line)
        }
    }

    func testPartsArriveIntact() throws {
        let form = try UploadFixture.files(in: directory, mediaSizes: [0, 1, 70_000])
        let client = try client()
        let (receipt, created) = try client.upload(formID: form.id, parts: form.files, progress: nil)
        XCTAssertTrue(created)
        XCTAssertEqual(receipt.id, form.id)
        XCTAssertEqual(receipt.uploadedBy, "fred")
        XCTAssertEqual(receipt.formName, "Pump 7")
        try assertReceipt(receipt, matches: form.files)
        XCTAssertEqual(receipt.parts.map(\.filename), ["form.json", "Qid1(1).jpg", "Qid1(2).jpg", "Qid1(3).jpg"])
        let logged = try XCTUnwrap(server.requests("PUT", "/api/v1/submissions/{id}").last)
        XCTAssertEqual(logged["contentTypes"] as? [String],
                       ["application/json", "application/octet-stream", "application/octet-stream",
                        "application/octet-stream"])
        XCTAssertEqual(try client.receipt(id: form.id), receipt)
    }

    func testSameUploadAgainIsNotCreatedTwice() throws {
        let form = try UploadFixture.files(in: directory)
        let client = try client()
        let first = try client.upload(formID: form.id, parts: form.files, progress: nil)
        let second = try client.upload(formID: form.id, parts: form.files, progress: nil)
        XCTAssertTrue(first.created)
        XCTAssertFalse(second.created)
        XCTAssertEqual(first.receipt, second.receipt)
    }

    func testDifferentContentUnderTheSameIDIs409() throws {
        let form = try UploadFixture.files(in: directory)
        let client = try client()
        _ = try client.upload(formID: form.id, parts: form.files, progress: nil)
        let changed = try UploadFixture.files(in: directory, formID: form.id, note: "changed")
        let error = assertTransportError { try client.upload(formID: form.id, parts: changed.files, progress: nil) }
        XCTAssertEqual(error, .conflict(message: "form \(form.id) was already uploaded with different content"))
        XCTAssertEqual(error?.failureClass, .refused)
    }

    func testTechnicianIsForbidden() throws {
        let form = try UploadFixture.files(in: directory)
        let error = assertTransportError { try self.client("ana").upload(formID: form.id, parts: form.files, progress: nil) }
        XCTAssertEqual(error, .forbidden(message: "only a foreman can upload forms"))
    }

    func testExpiredSessionIs401() throws {
        let form = try UploadFixture.files(in: directory)
        let client = ServerClient(server: try server.configuration(), token: "expired")
        let error = assertTransportError { try client.upload(formID: form.id, parts: form.files, progress: nil) }
        XCTAssertEqual(error, .sessionExpired)
    }

    func testTooLargeAfterTheBody() throws {
        try server.control(maxUploadBytes: 1000)
        let form = try UploadFixture.files(in: directory, mediaSizes: [5000])
        let error = assertTransportError { try self.client().upload(formID: form.id, parts: form.files, progress: nil) }
        guard case .uploadTooLarge(let message, let bytes)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(message?.contains("limit of 1000 bytes") ?? false, String(describing: message))
        let fileBytes = try form.files.reduce(Int64(0)) { $0 + (try FileDigest.sha256(of: $1.file).size) }
        XCTAssertEqual(bytes, fileBytes)
        XCTAssertTrue(error?.errorDescription?.contains("limit of 1000 bytes") ?? false)
    }

    /// Over 1 MiB libcurl sends `Expect: 100-continue`; the server refuses before the body is sent.
    func testTooLargeAnsweredToExpect() throws {
        try server.control(maxUploadBytes: 1 << 20)
        let form = try UploadFixture.files(in: directory, mediaSizes: [3 << 20])
        let error = assertTransportError { try self.client().upload(formID: form.id, parts: form.files, progress: nil) }
        guard case .uploadTooLarge(let message, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(message?.contains("limit of 1048576 bytes") ?? false, String(describing: message))
        let logged = try XCTUnwrap(server.requests("PUT", "/api/v1/submissions/{id}").last)
        XCTAssertEqual(logged["atExpect"] as? Bool, true)
    }

    func testExpectContinueIsKeptAndAnswered() throws {
        let form = try UploadFixture.files(in: directory, mediaSizes: [2 << 20])
        let client = try client()
        let start = Date()
        let result = try client.upload(formID: form.id, parts: form.files, progress: nil)
        XCTAssertTrue(result.created)
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.9, "the 100 came at once: no one-second stall")
        let logged = try XCTUnwrap(server.requests("PUT", "/api/v1/submissions/{id}").last)
        XCTAssertEqual(logged["expect"] as? String, "100-continue")
    }

    func testProxyPageIsNotAReceipt() throws {
        try server.control(routes: ["PUT /api/v1/submissions/{id}": [["status": 200, "html": true]]])
        let form = try UploadFixture.files(in: directory)
        let error = assertTransportError { try self.client().upload(formID: form.id, parts: form.files, progress: nil) }
        guard case .badResponse(let expected, let detail)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(expected, "an MI receipt")
        XCTAssertTrue(detail.contains("status 200") && detail.contains("<!DOCTYPE html>"), detail)
        XCTAssertTrue(error?.errorDescription?.hasPrefix("the server's answer was not an MI receipt") ?? false)
    }

    func testReceiptForAnotherFormIsRefused() throws {
        let other = try UploadFixture.files(in: directory)
        let client = try client()
        let stored = try client.upload(formID: other.id, parts: other.files, progress: nil).receipt
        let body = String(decoding: try WireJSON.encoder().encode(stored), as: UTF8.self)
        try server.control(routes: ["PUT /api/v1/submissions/{id}": [["status": 201, "body": body]]])
        let form = try UploadFixture.files(in: directory)
        let error = assertTransportError { try client.upload(formID: form.id, parts: form.files, progress: nil) }
        guard case .badResponse(let expected, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(expected, "the receipt of form \(form.id)")
    }

    func testFilesAreChecked() throws {
        let form = try UploadFixture.files(in: directory)
        let client = try client()
        let noForm = assertTransportError { try client.upload(formID: form.id, parts: Array(form.files.dropFirst()), progress: nil) }
        guard case .invalidUpload? = noForm else { return XCTFail("\(String(describing: noForm))") }
        let twice = assertTransportError { try client.upload(formID: form.id, parts: form.files + [form.files[1]], progress: nil) }
        guard case .invalidUpload? = twice else { return XCTFail("\(String(describing: twice))") }
        let missing = form.files + [UploadPart(name: "Qid9(1).jpg", file: directory.path("missing.jpg"))]
        let unreadable = assertTransportError { try client.upload(formID: form.id, parts: missing, progress: nil) }
        guard case .unreadableFile(let path, _)? = unreadable else { return XCTFail("\(String(describing: unreadable))") }
        XCTAssertEqual(path, directory.path("missing.jpg").path)
        XCTAssertTrue(server.requests("PUT", "/api/v1/submissions/{id}").isEmpty, "nothing sent")
    }

    func testProgressIncreasesToTheTotal() throws {
        let form = try UploadFixture.files(in: directory, mediaSizes: [8 << 20, 1000])
        let recorder = ProgressRecorder()
        let start = Date()
        _ = try client().upload(formID: form.id, parts: form.files, progress: recorder)
        let elapsed = Date().timeIntervalSince(start)
        let updates = recorder.updates
        XCTAssertFalse(updates.isEmpty)
        XCTAssertEqual(recorder.finishCount, 1)
        for (previous, next) in zip(updates, updates.dropFirst()) {
            XCTAssertLessThanOrEqual(previous.sent, next.sent)
        }
        let last = try XCTUnwrap(updates.last)
        XCTAssertEqual(last.sent, last.total)
        XCTAssertGreaterThan(last.total, 8 << 20, "the whole body, files and part headers")
        XCTAssertTrue(updates.allSatisfy { $0.total > 0 && $0.sent <= $0.total })
        XCTAssertLessThanOrEqual(Double(updates.count), elapsed * 10 + 2, "at most ten updates a second")
    }

    func testProgressFinishesOnFailureToo() throws {
        try server.control(routes: ["PUT /api/v1/submissions/{id}": [["status": 403, "message": "no"]]])
        let form = try UploadFixture.files(in: directory)
        let recorder = ProgressRecorder()
        assertTransportError { try self.client().upload(formID: form.id, parts: form.files, progress: recorder) }
        XCTAssertEqual(recorder.finishCount, 1)
    }

    /// A 50 MiB media file arrives intact while the client's peak memory barely moves: the file is
    /// streamed from disk, never loaded.
    func testLargeUploadStreamsFromDisk() throws {
        try uploadStreams(bytes: 50 << 20)
    }

    private func uploadStreams(bytes: Int) throws {
        let form = try UploadFixture.files(in: directory, mediaSizes: [bytes])
        let local = try form.files.map { try FileDigest.sha256(of: $0.file) }
        let client = try client()
        PeakMemory.reset()
        let before = try XCTUnwrap(PeakMemory.highWaterMark())
        let (receipt, created) = try client.upload(formID: form.id, parts: form.files, progress: nil)
        let after = try XCTUnwrap(PeakMemory.highWaterMark())
        XCTAssertTrue(created)
        XCTAssertEqual(receipt.parts.map(\.sha256), local.map(\.hex))
        XCTAssertEqual(receipt.parts.map(\.size), local.map(\.size))
        XCTAssertLessThan(after - before, 32 << 20, "peak RSS grew by \(after - before) bytes")
    }
}
