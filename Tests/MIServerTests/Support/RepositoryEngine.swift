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

/// The test run's one PostgreSQL server (`PostgresServer.shared()`).
enum SharedPostgres {
    static func server() throws -> PostgresServer { try PostgresServer.shared() }
}
