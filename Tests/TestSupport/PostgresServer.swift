import Foundation
import MIKit

/// A throwaway PostgreSQL started by `scripts/postgres-test.sh` (Debian's `postgresql`, initdb
/// in a temporary folder, run as an unprivileged user when the tests run as root), on a free
/// loopback port. Each test takes a fresh database of its own with `makeDatabase()`.
public final class PostgresServer: @unchecked Sendable {
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The `Server.Database` URL of the server's first database.
    public let url: String
    public let port: Int
    public let user: String
    /// The folder holding the cluster; removed by `stop()`.
    public let directory: String
    /// `Server.DatabasePasswordFile`: the user's password on one line.
    public let passwordFile: String
    public let password: String
    private let lock = NSLock()
    private var databases = 0
    private var stopped = false

    /// `<package>/scripts/postgres-test.sh`, found from this file's place in the package.
    public static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-test.sh")

    /// Starts a server; `tls` gives it a self-signed certificate for 127.0.0.1 (its file is
    /// `certificateFile`), for `?sslmode=require`.
    public init(tls: Bool = false) throws {
        let output = try Self.run(["/bin/bash", Self.script.path, "start"] + (tls ? ["--tls"] : []))
        let exports = ShellExports.parse(output)
        func value(_ name: String) throws -> String {
            guard let value = exports[name] else {
                throw StartError(description: "postgres-test.sh printed no \(name) in:\n\(output)")
            }
            return value
        }
        url = try value("PG_TEST_URL")
        guard let port = Int(try value("PG_TEST_PORT")) else { throw StartError(description: "bad PG_TEST_PORT") }
        self.port = port
        user = try value("PG_TEST_USER")
        directory = try value("PG_TEST_DIR")
        passwordFile = try value("PG_TEST_PASSWORD_FILE")
        password = try String(contentsOfFile: passwordFile, encoding: .utf8)
    }

    deinit { stop() }

    /// The server's self-signed certificate (with `tls`).
    public var certificateFile: String { directory + "/server.crt" }

    /// Creates a new, empty database and returns its location (plain TCP).
    public func makeDatabase() throws -> DatabaseLocation.Postgres {
        let name: String = lock.withLock {
            databases += 1
            return "test_\(databases)"
        }
        try psql("CREATE DATABASE \(name)")
        return DatabaseLocation.Postgres(user: user, host: "127.0.0.1", port: port, database: name)
    }

    /// Runs `sql` with psql in the server's first database; returns what psql printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "mi") throws -> String {
        try Self.run(["/usr/bin/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                      "-p", String(port), "-U", user, "-d", database, "-c", sql],
                     environment: ["PGPASSWORD": password])
    }

    /// Stops the server and deletes its folder; later calls do nothing.
    public func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? Self.run(["/bin/bash", Self.script.path, "stop", directory])
    }

    private static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        try ToolRun.output(URL(fileURLWithPath: arguments[0]), Array(arguments.dropFirst()), environment: environment)
    }
}

extension PostgresServer {
    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresServer, any Error>?

    /// One server for the whole test process, started by the first test that needs it (a
    /// failure to start is remembered, not retried) and stopped when the process exits.
    public static func shared() throws -> PostgresServer {
        try sharedLock.withLock {
            if let started { return try started.get() }
            let result = Result { try PostgresServer() }
            started = result
            if case .success = result { atexit { PostgresServer.stopShared() } }
            return try result.get()
        }
    }

    private static func stopShared() {
        sharedLock.withLock { try? started?.get().stop() }
    }
}
