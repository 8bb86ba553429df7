import Foundation
import Logging
import MIKit
@testable import MIServer
import TestSupport

/// The database engines a repository test runs against: the same tests, each engine's class.
enum RepositoryEngine: String, Sendable {
    case sqlite
    case postgres

    /// A fresh, empty repository, with what must live as long as it (its folder).
    func makeRepository() async throws -> (any SubmissionRepository, TemporaryDirectory) {
        let folder = try TemporaryDirectory(prefix: "mi-repository")
        switch self {
        case .sqlite:
            return (try SQLiteSubmissionRepository(path: folder.url.appendingPathComponent("db.sqlite").path), folder)
        case .postgres:
            let server = try SharedPostgres.server()
            let repository = try await PostgresSubmissionRepository(location: try server.makeDatabase(),
                                                                     password: server.password,
                                                                     logger: Logger(label: "test"))
            return (repository, folder)
        }
    }
}

/// Forgets every row's summary, as rows stored before summaries existed have none (the start-up
/// backfill's input).
func forgetSummaries(of repository: any SubmissionRepository) async throws {
    switch repository {
    case let sqlite as SQLiteSubmissionRepository: try await sqlite.forgetSummaries()
    case let postgres as PostgresSubmissionRepository: try await postgres.forgetSummaries()
    default: throw RepositoryEngine.Unsupported(repository: "\(type(of: repository))")
    }
}

extension RepositoryEngine {
    /// A repository type the tests cannot reach into.
    struct Unsupported: Error, CustomStringConvertible {
        var repository: String
        var description: String { "no way to forget the summaries of \(repository)" }
    }
}

/// One PostgreSQL server for the whole test run, started by the first test that needs it and
/// stopped when the test process exits.
enum SharedPostgres {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresServer, any Error>?

    static func server() throws -> PostgresServer {
        try lock.withLock {
            if let started { return try started.get() }
            let result = Result { try PostgresServer() }
            started = result
            if case .success = result { atexit { SharedPostgres.stop() } }
            return try result.get()
        }
    }

    private static func stop() {
        lock.withLock { try? started?.get().stop() }
    }
}
