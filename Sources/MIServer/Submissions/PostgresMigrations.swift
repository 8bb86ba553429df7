import Logging
import PostgresNIO

/// Applies versioned migrations to a PostgreSQL database, for the repository and the stores
/// that live beside it (review, audit): each migration once, in order, recorded by name in
/// `table`, all under the advisory lock `lock` so servers starting at once never race. Runs on
/// `connection` inside the caller's transaction.
enum PostgresMigrations {
    static func apply(_ migrations: [(name: String, sql: [String])], table: StaticString, lock: Int64,
                      on connection: PostgresConnection, logger: Logger) async throws {
        let table = "\(table)"
        try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: """
            CREATE TABLE IF NOT EXISTS \(table) (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
            """), logger: logger)
        var applied = Set<String>()
        for try await name in try await connection.query(PostgresQuery(unsafeSQL: "SELECT name FROM \(table)"), logger: logger)
            .decode(String.self) {
            applied.insert(name)
        }
        for migration in migrations where !applied.contains(migration.name) {
            for statement in migration.sql {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            var record = PostgresBindings()
            record.append(migration.name)
            try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (name) VALUES ($1)", binds: record), logger: logger)
        }
    }
}
