import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdTesting
import MIDirectory
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// Several mi-servers on one data folder and one signing key: who may share the folder, whose
/// receiving folders a start-up sweep removes, and sessions valid on every server.
final class SharedDataDirectoryTests: XCTestCase {
    /// A lock held as another process holds it: a separate open file description.
    private func holdLock(_ path: String, _ operation: Int32) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(flock(fd, operation | LOCK_NB), 0)
        return fd
    }

    func testPostgreSQLServersShareTheFolderButAnSQLiteServerOwnsIt() throws {
        let directory = try TemporaryDirectory(prefix: "mi-shared")
        // Another PostgreSQL server holds the folder shared: a second one joins, SQLite may not.
        let shared = directory.path("shared")
        try DataLayout(root: shared).prepare()
        let other = try holdLock(shared.appendingPathComponent("mi-server.lock").path, LOCK_SH)
        defer { close(other) }
        XCTAssertThrowsError(try DataDirectoryLock.acquire(in: shared, shared: false)) { error in
            XCTAssertEqual(error as? ServerSetupError, .alreadyRunning(folder: shared.path))
        }
        let instance = try DataDirectoryLock.acquire(in: shared, shared: true)
        XCTAssertTrue(Files.isDirectory(DataLayout(root: shared).incoming.appendingPathComponent(instance)))
        XCTAssertTrue(Files.exists(DataLayout(root: shared).incoming.appendingPathComponent(instance + ".lock")))
        XCTAssertEqual(try DataDirectoryLock.acquire(in: shared, shared: true), instance, "one receiving folder per process")

        // An SQLite server owns its folder: a PostgreSQL server may not join it.
        let owned = directory.path("owned")
        try DataLayout(root: owned).prepare()
        let owner = try holdLock(owned.appendingPathComponent("mi-server.lock").path, LOCK_EX)
        defer { close(owner) }
        XCTAssertThrowsError(try DataDirectoryLock.acquire(in: owned, shared: true)) { error in
            XCTAssertEqual(error as? ServerSetupError, .alreadyRunning(folder: owned.path))
        }
    }

    func testTheStartUpSweepKeepsALiveServersUploadsAndRemovesADeadOnes() async throws {
        let fixture = try ServerFixture()
        let incoming = fixture.layout.incoming
        // A server alive elsewhere (its lock held), one that died (its lock free), one that died
        // before it made its folder, and a folder of the layout before receiving folders.
        let live = UUID().uuidString.lowercased(), dead = UUID().uuidString.lowercased()
        let early = UUID().uuidString.lowercased()
        try Files.write("in progress", to: incoming.appendingPathComponent("\(live)/upload/form.json"))
        let liveLock = try holdLock(incoming.appendingPathComponent(live + ".lock").path, LOCK_EX)
        defer { close(liveLock) }
        try Files.write("half", to: incoming.appendingPathComponent("\(dead)/upload/Qid0(1).jpg"))
        try Files.write("", to: incoming.appendingPathComponent(dead + ".lock"))
        try Files.write("", to: incoming.appendingPathComponent(early + ".lock"))
        try Files.write("old", to: incoming.appendingPathComponent("8e0c1a2b/form.json"))

        _ = try await fixture.application()
        XCTAssertEqual(fixture.layout.uploadsBeingReceived, ["\(live)/upload"], "only the live server's upload is left")
        XCTAssertEqual(try String(contentsOf: incoming.appendingPathComponent("\(live)/upload/form.json"), encoding: .utf8), "in progress")
        for gone in [dead, dead + ".lock", early + ".lock", "8e0c1a2b"] {
            XCTAssertFalse(Files.exists(incoming.appendingPathComponent(gone)), gone)
        }
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("removed unfinished uploads") })
    }

    /// Two servers starting at once sweep the same dead folders: each folder goes once, and
    /// neither start fails on a folder the other removed first.
    func testTwoSweepsAtOnceBothSucceedAndLeaveNothingDead() async throws {
        let directory = try TemporaryDirectory(prefix: "mi-sweep")
        let layout = DataLayout(root: directory.url)
        try layout.prepare()
        for _ in 0..<200 {
            let dead = UUID().uuidString.lowercased()
            try Files.write("half", to: layout.incoming.appendingPathComponent("\(dead)/upload/form.json"))
            try Files.write("", to: layout.incoming.appendingPathComponent(dead + ".lock"))
        }
        let (repository, folder) = try await RepositoryEngine.sqlite.makeRepository()
        _ = folder
        let logger = LogCapture().logger()
        async let first = layout.removeLeftovers(repository: repository, logger: logger)
        async let second = layout.removeLeftovers(repository: repository, logger: logger)
        let removed = try await first + second
        XCTAssertEqual(removed.count, 200, "each dead folder removed once")
        XCTAssertEqual(Files.names(in: layout.incoming), [])
    }

    func testServersWithOneSigningKeyFileAcceptEachOthersSessions() async throws {
        let keys = try TemporaryDirectory(prefix: "mi-keys")
        let keyFile = keys.path("cluster.key")
        let first = try ServerFixture([.set("Server.SigningKeyFile", .string(keyFile.path))])
        let second = try ServerFixture([.set("Server.SigningKeyFile", .string(keyFile.path))])
        let separate = try ServerFixture()
        XCTAssertEqual(first.configuration.server.signingKeyFile, keyFile.path)

        let token = try await first.test { client in try await client.login("fiona") }
        try await second.test { client in
            try await assertStatus(.ok, await client.get("/api/v1/templates", token: token))
        }
        try await separate.test { client in
            try await assertStatus(.unauthorized, await client.get("/api/v1/templates", token: token))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, SigningKey.byteCount)
        XCTAssertFalse(Files.exists(first.layout.signingKey), "no key of its own in the data folder")
    }

    /// Servers sharing the data folder each keep their own `SessionRevocations` on its one file:
    /// a session signed out on one is refused by the other at its next request, also after a
    /// third server's start rewrote the file without the expired lines.
    func testASessionSignedOutOnOneServerIsRefusedByTheOthers() throws {
        let shared = try TemporaryDirectory(prefix: "mi-shared")
        let file = DataLayout(root: shared.url).revokedSessions
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        func server() -> SessionTokens {
            SessionTokens(keyBytes: key, lifetime: 3600, revocations: SessionRevocations(file: file))
        }
        let one = server(), two = server()
        let now = Date()
        let user = DirectoryUser(userName: "fiona", dn: "uid=fiona", displayName: "Fiona", role: .foreman)
        let (token, claims) = try one.issue(for: user, now: now)
        let (other, _) = try one.issue(for: user, now: now)
        XCTAssertNotNil(claims.jti, "a token carries its id")
        XCTAssertNotNil(two.verify(token, now: now), "valid on both before signing out")
        try one.revoke(token, claims: claims)
        XCTAssertNil(one.verify(token, now: now))
        XCTAssertNil(two.verify(token, now: now), "the other server refuses the signed-out token")
        XCTAssertNotNil(two.verify(other, now: now), "another session of the same user goes on")
        // An expired line is dropped at a start; the revoked one, still unexpired, is kept.
        try SessionRevocations(file: file).revoke(id: "old-session", expires: Int64(now.timeIntervalSince1970) - 3600)
        try SessionRevocations(file: file).prune(now: now)
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertFalse(text.contains("old-session"), text)
        XCTAssertNil(two.verify(token, now: now), "still refused after the rewrite")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        // An unreadable list refuses every token rather than accept a revoked one.
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        XCTAssertNil(two.verify(other, now: now), "fail closed")
    }

    func testServersStartingAtOnceOnANewKeyFileAllReadOneKey() async throws {
        let keys = try TemporaryDirectory(prefix: "mi-keys")
        let keyFile = keys.path("cluster.key")
        let logs = LogCapture()
        let read = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask { try SigningKey.loadOrCreate(at: keyFile, logger: logs.logger()) }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        XCTAssertEqual(read.count, 8)
        XCTAssertEqual(Set(read).count, 1, "every server uses the one key on disk")
        XCTAssertEqual(read.first, [UInt8](try Data(contentsOf: keyFile)))
        XCTAssertEqual(logs.messages.filter { $0.contains("made a new session signing key") }.count, 1)
        XCTAssertEqual(Files.names(in: keys.url), ["cluster.key"], "no temporary file left")
    }

    func testASigningKeyFileInAMissingFolderStopsTheStart() async throws {
        let fixture = try ServerFixture([.set("Server.SigningKeyFile", "/nonexistent-mi/cluster.key")])
        do {
            _ = try await fixture.application()
            XCTFail("the key cannot be made")
        } catch {
            let message = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(message.contains("/nonexistent-mi/cluster.key"), message)
            XCTAssertTrue(message.contains("check that its folder exists"), message)
            XCTAssertEqual((error as? ServerSetupError)?.failureClass, .configuration)
        }
    }

    /// Two servers sharing the templates folder and the key file: a template published in one
    /// server's office is served by the other at once, and the office cookie works on both.
    func testATemplatePublishedOnOneServerIsServedByTheOtherAndTheOfficeCookieWorksOnBoth() async throws {
        let shared = try TemporaryDirectory(prefix: "mi-shared")
        try Files.write(TemplateFixture.sampleJSON, to: shared.path("templates", "pump-inspection.json"))
        let edits: [ConfigEdit] = [.set("Server.TemplatesDirectory", .string(shared.path("templates").path)),
                                   .set("Server.SigningKeyFile", .string(shared.path("cluster.key").path))]
        let first = try ServerFixture(edits), second = try ServerFixture(edits)
        let draft = #"{"id": "pump-inspection", "title": "Pump, reworked", "questions": [{"id": "ok", "type": "trueFalse", "text": "Ok?"}]}"#
        try await first.test { one in
            let fiona = try await one.officeSession("fiona", fixture: first)
            let published = try await one.execute(uri: "/templates/publish?basedOn=pump-inspection", method: .post,
                                                  headers: [.cookie: fiona.cookieHeader, CSRFMiddleware.header: fiona.csrf,
                                                            .contentType: "application/json"],
                                                  body: ByteBuffer(string: draft)) { $0 }
            XCTAssertEqual(published.status, .created, published.text)
            try await second.test { two in
                let token = try await two.login("ana")
                let templates = try await TemplateTests.list(two, token: token)
                XCTAssertEqual(templates.first?["version"] as? Int, 5)
                XCTAssertEqual(templates.first?["title"] as? String, "Pump, reworked")
                let page = try await two.execute(uri: "/templates", method: .get,
                                                 headers: [.cookie: fiona.cookieHeader, .accept: "text/html"]) { $0 }
                XCTAssertEqual(page.status, .ok, "the first server's cookie signs in on the second")
                XCTAssertTrue(page.text.contains("Pump, reworked"), page.text)
            }
        }
    }
}
