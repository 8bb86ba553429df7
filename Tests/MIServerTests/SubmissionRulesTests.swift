import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The upload's part rules and who may read a receipt, against a live server.
final class SubmissionRulesTests: XCTestCase {
    /// Uploads `upload` as a foreman: it must be refused with 400 and `message`, storing nothing.
    private func assertRefused(_ upload: MultipartBody, _ message: String, file: StaticString = #filePath,
                               line: UInt = #line) async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(upload, token: token)
            XCTAssertEqual(response.status, .badRequest, file: file, line: line)
            XCTAssertEqual(response.errorMessage, message, file: file, line: line)
            try await assertStatus(.notFound, await client.get("/api/v1/submissions/\(ServerFixture.formID)", token: token),
                                   file: file, line: line)
        }
    }

    func testAMediaPartBeforeTheFormIsRefusedAndNothingIsStored() async throws {
        var reordered = try ServerFixture.upload()
        reordered.parts.append(reordered.parts.removeFirst())
        try await assertRefused(reordered, "media part \"Qid0(1).jpg\" comes before the \"form\" part, or there is none — send form.json first, as the part named \"form\" (use `mi upload`)")
    }

    func testAMediaPartWhoseFilenameIsNotItsNameIsRefused() async throws {
        var renamed = try ServerFixture.upload()
        renamed.parts[1].filename = "IMG_0001.jpg"
        try await assertRefused(renamed, "media part \"Qid0(1).jpg\" has the filename \"IMG_0001.jpg\" — a media part's filename must be its part name (use `mi upload`)")
    }

    func testATechnicianReadsOnlyReceiptsOfTheirOwnForms() async throws {
        let fixture = try ServerFixture()
        let anasID = ServerFixture.formID
        let bobsID = try XCTUnwrap(FormID("0B0B0B0B-9A7B-4C3D-8E5F-1A2B3C4D5E6F"))
        let anas = try ServerFixture.upload()
        let bobs = try ServerFixture.upload(formData: try ServerFixture.formData(id: bobsID, user: "bob"))
        try await fixture.test(.live) { client in
            let foreman = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(anas, token: foreman))
            try await assertStatus(.created, await client.upload(bobs, token: foreman))
            let technician = try await client.login("ana")
            try await assertStatus(.ok, await client.get("/api/v1/submissions/\(anasID)", token: technician))
            let other = try await client.get("/api/v1/submissions/\(bobsID)", token: technician)
            let missing = try await client.get("/api/v1/submissions/\(UUID())", token: technician)
            XCTAssertEqual(other.status, .notFound)
            XCTAssertEqual(missing.status, .notFound)
            // The same answer as for an id the server does not hold: nothing is revealed.
            XCTAssertEqual(other.errorMessage?.replacingOccurrences(of: bobsID.description, with: "ID"),
                           missing.errorMessage.map { $0.replacingOccurrences(of: #"[0-9A-F-]{36}"#, with: "ID", options: .regularExpression) })
            try await assertStatus(.ok, await client.get("/api/v1/submissions/\(bobsID)", token: foreman))
        }
    }
}
