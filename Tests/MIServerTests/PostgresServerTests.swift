import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// mi-server with `Server.Database` naming a PostgreSQL database: uploads stored there, the
/// password from `Server.DatabasePasswordFile`, TLS when asked, and clear start-up errors.
final class PostgresServerTests: XCTestCase {
    /// A fixture whose Config.plist points at a fresh database of the shared server.
    func fixture(passwordFile: String? = nil) throws -> (ServerFixture, DatabaseLocation.Postgres) {
        let (edits, database) = try ServerFixture.postgresEdits(passwordFile: passwordFile)
        return (try ServerFixture(edits), database)
    }

    func testAnUploadIsStoredInPostgreSQLOnceAcrossARestart() async throws {
        let (fixture, database) = try fixture()
        let upload = try ServerFixture.upload()
        let first = try await fixture.test { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(upload, token: token)
            try await assertStatus(.created, response)
            return try response.receipt()
        }
        let second = try await fixture.test { client in
            let token = try await client.login("fiona")
            let response = try await client.upload(upload, token: token)
            try await assertStatus(.ok, response)
            return try response.receipt()
        }
        XCTAssertEqual(second, first)
        let server = try SharedPostgres.server()
        XCTAssertEqual(try server.psql("SELECT id FROM submission", database: database.database), first.id.description + "\n")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM part", database: database.database), "3\n")
        XCTAssertFalse(Files.exists(fixture.layout.database), "no SQLite file beside the media")
        XCTAssertEqual(Files.names(in: fixture.layout.submission(first.id)), ["Qid0(1).jpg", "Qid6(1).mp4", "form.json"])
    }

    func testAWrongPasswordStopsTheStartNamingTheDatabaseAndTheKeys() async throws {
        let folder = try TemporaryDirectory(prefix: "mi-pg-password")
        let wrong = folder.path("password")
        try Files.write("not-the-password\n", to: wrong)
        let (fixture, database) = try fixture(passwordFile: wrong.path)
        do {
            _ = try await fixture.application()
            XCTFail("the server must not start")
        } catch let error as ServerSetupError {
            guard case .postgres(let url, let detail) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(detail, "password authentication failed for user \"mi\"")
            XCTAssertEqual(url, "postgres://mi@127.0.0.1:\(database.port)/\(database.database)")
            XCTAssertEqual(error.failureClass, .configuration)
            XCTAssertTrue(error.errorDescription?.contains("check Server.Database, Server.DatabasePasswordFile") ?? false)
            XCTAssertFalse(error.errorDescription?.contains("not-the-password") ?? true)
        }
    }

    func testAMissingPasswordFileIsAConfigurationError() async throws {
        let (fixture, _) = try fixture(passwordFile: "/nonexistent/db-password")
        do {
            _ = try await fixture.application()
            XCTFail("the server must not start")
        } catch let error as ServerSetupError {
            guard case .databasePasswordFile(let path, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/nonexistent/db-password")
            XCTAssertEqual(error.failureClass, .configuration)
        }
    }

    func testTLSToTheDatabaseIsVerifiedAgainstSSLRootCert() async throws {
        let server = try PostgresServer(tls: true)
        defer { server.stop() }
        let database = try server.makeDatabase()
        var location = database
        location.requireTLS = true
        location.caFile = server.certificateFile
        let repository = try await PostgresSubmissionRepository(location: location, password: server.password,
                                                                logger: .init(label: "test"))
        let ids = try await repository.submissionIDs()
        XCTAssertEqual(ids, [])
        // The pool's connection, still open, is an SSL one.
        let encrypted = try server.psql("""
            SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)
            WHERE ssl AND datname = current_database() AND pid <> pg_backend_pid()
            """, database: database.database)
        XCTAssertNotEqual(encrypted, "0\n")
        // The system's CAs do not know the throwaway certificate: refused, never used unverified.
        location.caFile = nil
        do {
            _ = try await PostgresSubmissionRepository(location: location, password: server.password, logger: .init(label: "test"))
            XCTFail("an unverified certificate must be refused")
        } catch {
            XCTAssertTrue(PostgresSubmissionRepository.reason(error).contains("CERTIFICATE_VERIFY_FAILED"),
                          PostgresSubmissionRepository.reason(error))
        }
    }
}
