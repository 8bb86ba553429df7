import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// A temporary folder with Config.plist (templates in `templates/`, server data in `data/`),
/// the sample template, a fake directory, a clock the test moves, and captured logs. The
/// submissions table lives in SQLite in `data/`, or with `engine: .postgres` in a fresh
/// database of the test run's shared PostgreSQL.
final class ServerFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let configuration: Configuration
    let clock = TestClock()
    let fakeDirectory = FakeDirectory()
    let logs = LogCapture()

    init(_ edits: [ConfigEdit] = [], engine: RepositoryEngine = .sqlite) throws {
        directory = try TemporaryDirectory(prefix: "mi-server")
        let database = engine == .postgres ? try Self.postgresEdits().edits : []
        let plist = try ConfigFixture.write(into: directory.url, [
            .set("Server.TemplatesDirectory", "templates"),
            .set("Server.DataDirectory", "data"),
        ] + database + edits)
        configuration = try ConfigurationLoader.load(from: plist)
        try Files.write(TemplateFixture.sampleJSON, to: templates.appendingPathComponent("pump-inspection.json"))
    }

    /// `Server.Database` and `Server.DatabasePasswordFile` naming a fresh database of the shared
    /// PostgreSQL (the password file the server's own unless `passwordFile` names another).
    /// `icuLocale` (e.g. "en-US") gives the database that language's collation, as most
    /// installations have, instead of the test server's byte order ("C.UTF-8").
    static func postgresEdits(passwordFile: String? = nil,
                              icuLocale: String? = nil) throws -> (edits: [ConfigEdit], database: DatabaseLocation.Postgres) {
        let server = try SharedPostgres.server()
        var database = try server.makeDatabase()
        if let icuLocale {
            database.database += "_icu"
            try server.psql("CREATE DATABASE \(database.database) LOCALE_PROVIDER icu ICU_LOCALE '\(icuLocale)' TEMPLATE template0")
        }
        let url = "postgres://\(database.user)@\(database.host):\(database.port)/\(database.database)"
        return ([.set("Server.Database", .string(url)),
                 .set("Server.DatabasePasswordFile", .string(passwordFile ?? server.passwordFile))], database)
    }

    /// The fixture's database opened beside the server's, as another process would open it.
    func openRepository() async throws -> any SubmissionRepository {
        switch configuration.server.database {
        case .sqlite:
            return try SQLiteSubmissionRepository(path: layout.database.path)
        case .postgres(let location):
            return try await PostgresSubmissionRepository(location: location, password: try SharedPostgres.server().password,
                                                          logger: Logger(label: "test"))
        }
    }

    var templates: URL { configuration.server.templatesDirectory }
    var data: URL { configuration.server.dataDirectory }
    var layout: DataLayout { DataLayout(root: data) }

    func application() async throws -> some ApplicationProtocol {
        let clock = self.clock
        return try await makeApplication(configuration: configuration, directory: fakeDirectory,
                                         logger: logs.logger(), now: { clock.now })
    }

    /// Runs `test` against a freshly built application.
    func test<Value: Sendable>(_ setup: TestingSetup = .router,
                               _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await application().test(setup, test)
    }

    // MARK: - Forms

    static let media = ["Qid0(1).jpg": Data((0..<5000).map { UInt8($0 % 251) }),
                        "Qid6(1).mp4": Data(repeating: 0x0d, count: 3000) + Data("\r\n--x".utf8)]

    /// form.json of a completed sample form with the media above.
    static let formID = FormID("6F1D2E4C-9A7B-4C3D-8E5F-1A2B3C4D5E6F") ?? FormID()

    static func formData(id: FormID = formID, user: String = "ana",
                         note: String = "all fine", media: [String] = media.keys.sorted(),
                         simulated: Bool = false, cleared: [String] = []) throws -> Data {
        var form = Form(id: id, name: "pump-1", user: user, template: try TemplateFixture.sampleTemplate(),
                        createdAt: TestClock.start)
        form.status = .completed
        form.answers["guard"] = Answer(value: .bool(true), media: media.filter { $0.hasPrefix("Qid0") })
        form.answers["bearings"] = Answer(comment: "motor not measured", media: media.filter { $0.hasPrefix("Qid6") })
        form.answers["notes"] = Answer(value: .text(note))
        if simulated { form.record(AuditEvent(at: TestClock.start, by: user, action: .simulated)) }
        if !cleared.isEmpty { form.record(AuditEvent(at: TestClock.start, by: user, action: .cleared, questions: cleared)) }
        return try FormFile.encode(form)
    }

    /// The standard upload: the form and its two media files.
    static func upload(formData: Data? = nil, media: [String: Data] = media) throws -> MultipartBody {
        var body = MultipartBody()
        body.add(form: try formData ?? Self.formData())
        for name in media.keys.sorted() { body.add(media: name, data: media[name] ?? Data()) }
        return body
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}

/// A test class whose tests run mi-server on `engine`: SQLite here; a `Postgres…` subclass that
/// overrides `engine` runs every inherited test again on PostgreSQL.
class EngineTestCase: XCTestCase {
    class var engine: RepositoryEngine { .sqlite }

    /// A fixture on this class's engine.
    func makeFixture(_ edits: [ConfigEdit] = []) throws -> ServerFixture {
        try ServerFixture(edits, engine: Self.engine)
    }

    /// Asserts that an upload lands in this class's engine and nowhere else. A `Postgres…`
    /// subclass calls it from a test of its own: SwiftPM's test discovery finds (and then runs
    /// the inherited tests of) only a class that declares a test.
    func assertUploadsLandInTheEngine(file: StaticString = #filePath, line: UInt = #line) async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: try await client.login("fiona")))
        }
        XCTAssertEqual(Files.exists(fixture.layout.database), Self.engine == .sqlite, "the SQLite file", file: file, line: line)
        switch fixture.configuration.server.database {
        case .sqlite:
            XCTAssertEqual(Self.engine, .sqlite, file: file, line: line)
        case .postgres(let location):
            XCTAssertEqual(Self.engine, .postgres, file: file, line: line)
            XCTAssertEqual(try SharedPostgres.server().psql("SELECT count(*) FROM submission", database: location.database), "1\n",
                           file: file, line: line)
        }
    }
}

// MARK: - Requests

extension TestClientProtocol {
    /// Logs in through the API and returns the token.
    func login(_ user: String, password: String = FakeDirectory.password) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["user": user, "password": password])
        return try await execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                 body: ByteBuffer(bytes: body)) { response in
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            return try XCTUnwrap(json["token"] as? String)
        }
    }

    func upload(_ body: MultipartBody, token: String, extraHeaders: HTTPFields = [:]) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: body.contentType]
        headers.append(contentsOf: extraHeaders)
        return try await execute(uri: "/api/v1/submissions", method: .post, headers: headers,
                                 body: ByteBuffer(bytes: body.data)) { $0 }
    }

    func get(_ uri: String, token: String?) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: .get, headers: headers) { $0 }
    }
}

extension TestResponse {
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(buffer: body)) }
    var errorMessage: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["message"] as? String }
    var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    var text: String { String(buffer: body) }

    func receipt() throws -> Receipt {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Receipt.self, from: Data(buffer: body))
    }
}

/// Asserts a response's status (the test clients are async, XCTest's assertions are not).
func assertStatus(_ expected: HTTPResponse.Status, _ response: @autoclosure () async throws -> TestResponse,
                  file: StaticString = #filePath, line: UInt = #line) async throws {
    let actual = try await response()
    XCTAssertEqual(actual.status, expected, actual.text, file: file, line: line)
}
