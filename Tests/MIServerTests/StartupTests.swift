import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

final class StartupTests: XCTestCase {
    func testLeftoversOfAnInterruptedUploadAreRemovedAtStart() async throws {
        let fixture = try ServerFixture()
        let committedID = try await fixture.test { client in
            let token = try await client.login("fiona")
            return try await client.upload(try ServerFixture.upload(), token: token).receipt().id
        }
        // A server killed mid-upload, and one killed between the rename and the commit.
        let layout = fixture.layout
        try Files.write("partial", to: layout.incoming.appendingPathComponent("x/Qid0(1).jpg"))
        try Files.write("half", to: layout.incoming.appendingPathComponent("loose-file"))
        let uncommitted = FormID("0b9c3f4e-1111-4222-8333-944455556666") ?? FormID()
        try Files.write("{}", to: layout.submission(uncommitted).appendingPathComponent("form.json"))

        _ = try await fixture.application()
        XCTAssertEqual(layout.uploadsBeingReceived, [])
        XCTAssertEqual(Files.names(in: layout.submissions), [committedID.description])
        XCTAssertEqual(Files.names(in: layout.submission(committedID)), ["Qid0(1).jpg", "Qid6(1).mp4", "form.json"])
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("removed unfinished uploads") })
    }

    func testRetryAfterAnInterruptedCommitIsAcceptedOnce() async throws {
        let fixture = try ServerFixture()
        // The folder a killed server renamed into place but never committed.
        let id = ServerFixture.formID
        try Files.write("stale", to: fixture.layout.submission(id).appendingPathComponent("form.json"))
        let upload = try ServerFixture.upload()
        try await fixture.test { client in
            let token = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(upload, token: token))
            try await assertStatus(.ok, await client.upload(upload, token: token))
        }
        let stored = try Data(contentsOf: fixture.layout.submission(id).appendingPathComponent("form.json"))
        XCTAssertEqual(stored, try ServerFixture.formData())
    }

    func testSigningKeyIsOwnerOnlyAndSurvivesARestart() async throws {
        let fixture = try ServerFixture()
        let token = try await fixture.test { client in try await client.login("fiona") }
        let keyFile = fixture.layout.signingKey
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, 32)
        let folder = try FileManager.default.attributesOfItem(atPath: fixture.data.path)
        XCTAssertEqual((folder[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        let key = try Data(contentsOf: keyFile)

        // A second application on the same data: same key, the first one's token still works.
        try await fixture.test { client in
            try await assertStatus(.ok, await client.get("/api/v1/templates", token: token))
        }
        XCTAssertEqual(try Data(contentsOf: keyFile), key)

        // A new key (the file removed) ends every session.
        try FileManager.default.removeItem(at: keyFile)
        try await fixture.test { client in
            try await assertStatus(.unauthorized, await client.get("/api/v1/templates", token: token))
        }
        XCTAssertNotEqual(try Data(contentsOf: keyFile), key)
    }

    func testDamagedSigningKeyStopsTheStartWithAClearMessage() async throws {
        let fixture = try ServerFixture()
        try Files.write("short", to: fixture.layout.signingKey)
        do {
            _ = try await fixture.application()
            XCTFail("a damaged key must not be used")
        } catch {
            let message = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(message.contains("signing.key") && message.contains("damaged"), message)
        }
    }

    func testASecondServerOnTheSameDataFolderIsRefusedBeforeTouchingIt() async throws {
        let fixture = try ServerFixture()
        try DurableFile.makeFolder(fixture.data)
        // Another process's lock: a separate open file description holding flock.
        let fd = open(fixture.data.appendingPathComponent("mi-server.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        try Files.write("someone's upload in progress", to: fixture.layout.incoming.appendingPathComponent("busy/form.json"))
        do {
            _ = try await fixture.application()
            XCTFail("the data folder is in use")
        } catch {
            let message = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(message.contains("another mi-server is already using"), message)
            XCTAssertEqual(error as? ServerSetupError, .alreadyRunning(folder: fixture.data.path))
            XCTAssertEqual((error as? ServerSetupError)?.failureClass, .refused)
        }
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, ["busy"], "nothing was cleaned up")
    }

    func testMissingTemplatesFolderIsLoggedNotFatal() async throws {
        let fixture = try ServerFixture()
        try FileManager.default.removeItem(at: fixture.templates)
        try await fixture.test { client in
            let token = try await client.login("ana")
            let response = try await client.get("/api/v1/templates", token: token)
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.text, "[]")
        }
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("does not exist") })
    }
}

/// `mi-server`'s command line, parsed by ArgumentParser.
final class ServerCommandLineTests: XCTestCase {
    func testConfigOptionIsParsed() throws {
        XCTAssertNoThrow(try ServerCommand.parseAsRoot(["--config", "/etc/mi/Config.plist"]))
        XCTAssertNoThrow(try ServerCommand.parseAsRoot(["--config=/etc/mi/Config.plist"]))
        XCTAssertNoThrow(try ServerCommand.parseAsRoot([]))
    }

    func testUnknownArgumentOrMissingPathIsAUsageError() {
        for arguments in [["--bogus"], ["--config"], ["extra"]] {
            XCTAssertThrowsError(try ServerCommand.parseAsRoot(arguments), "\(arguments)") { error in
                XCTAssertEqual(ServerCommand.exitCode(for: error).rawValue, 64, "\(arguments)")
            }
        }
    }

    func testHelpNamesTheOptionAndTheEnvironment() {
        let help = ServerCommand.helpMessage()
        XCTAssertTrue(help.contains("--config <path>"), help)
        XCTAssertTrue(help.contains("LOG_LEVEL"), help)
    }
}

/// Why mi-server cannot start: settings it cannot use are `configuration` (exit 78).
final class ServerSetupErrorTests: XCTestCase {
    func testClassesAndCodes() {
        let errors: [(ServerSetupError, FailureClass)] = [
            (.listenAddress("nowhere"), .configuration),
            (.dataDirectory(operation: "lock", path: "/d/mi-server.lock", reason: "Permission denied"), .configuration),
            (.signingKey(path: "/d/signing.key", problem: "damaged (3 bytes) — remove it"), .configuration),
            (.database(path: "/d/mi.sqlite", detail: "disk I/O error"), .configuration),
            (.databasePasswordFile(path: "/etc/mi/db-password", reason: "Permission denied"), .configuration),
            (.postgres(url: "postgres://mi@db:5432/mi", detail: "connection refused"), .configuration),
            (.alreadyRunning(folder: "/d"), .refused),
            (.storage(operation: "write", path: "/d/incoming/x", reason: "No space left on device"), .refused),
        ]
        for (error, expected) in errors {
            XCTAssertEqual(error.failureClass, expected, "\(error)")
            XCTAssertTrue(error.errorDescription?.contains(" — ") ?? false, "\(error)")
        }
        XCTAssertEqual(Set(errors.map(\.0.code)).count, errors.count)
        XCTAssertEqual(ServerSetupError.listenAddress("nowhere").errorDescription,
                       "Server.Listen \"nowhere\" is not HOST:PORT — fix it in Config.plist")
    }
}
