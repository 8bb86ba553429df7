import Foundation
import GRDB
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// Forms made by `mi simulate` are refused unless Server.AcceptSimulated is true.
final class SimulatedSubmissionTests: XCTestCase {
    private func rowCount(_ fixture: ServerFixture) throws -> Int {
        guard FileManager.default.fileExists(atPath: fixture.layout.database.path) else { return 0 }
        let queue = try DatabaseQueue(path: fixture.layout.database.path)
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? -1 }
    }

    func testASimulatedFormIsRefusedWith422AndNothingIsStored() async throws {
        let fixture = try ServerFixture()
        let upload = try ServerFixture.upload(formData: try ServerFixture.formData(simulated: true))
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(upload, token: token)
            XCTAssertEqual(response.status, .unprocessableContent, response.text)
            let message = try XCTUnwrap(response.errorMessage, response.text)
            XCTAssertTrue(message.contains("simulated"), message)
            XCTAssertTrue(message.contains("set Server.AcceptSimulated to true"), message)
            try await assertStatus(.notFound, await client.get("/api/v1/submissions/\(ServerFixture.formID.description)", token: token))
        }
        XCTAssertEqual(try rowCount(fixture), 0)
        XCTAssertFalse(Files.exists(fixture.layout.submission(ServerFixture.formID)))
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, [])
    }

    func testASimulatedFormIsStoredWhenTheServerAcceptsThem() async throws {
        let fixture = try ServerFixture([.set("Server.AcceptSimulated", true)])
        let upload = try ServerFixture.upload(formData: try ServerFixture.formData(simulated: true))
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(upload, token: token)
            XCTAssertEqual(response.status, .created, response.text)
        }
        XCTAssertEqual(try rowCount(fixture), 1)
    }

    func testARealFormIsStoredWhateverTheSetting() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(try ServerFixture.upload(), token: token)
            XCTAssertEqual(response.status, .created, response.text)
        }
        XCTAssertEqual(try rowCount(fixture), 1)
    }
}
