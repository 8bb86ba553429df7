import Foundation

/// Where mi-server keeps its submissions table (`Server.Database`): SQLite in
/// `Server.DataDirectory` (the default), or a PostgreSQL database several servers can share.
public enum DatabaseLocation: Sendable, Equatable {
    /// `DataDirectory/mi-server.sqlite`.
    case sqlite
    /// A PostgreSQL database, from a `postgres://user@host:port/db` URL.
    case postgres(Postgres)

    /// A PostgreSQL server and database. The password is not part of it: it is read from
    /// `Server.DatabasePasswordFile` when mi-server starts.
    public struct Postgres: Sendable, Equatable {
        public var user: String
        public var host: String
        public var port: Int
        public var database: String
        /// `?sslmode=require`: TLS to the database, its certificate verified against the
        /// system's CAs or `sslrootcert`. Without it the connection is plain TCP.
        public var requireTLS: Bool
        /// `?sslrootcert=PATH`: the CA bundle that verifies the database's certificate.
        public var caFile: String?

        public init(user: String, host: String, port: Int = 5432, database: String, requireTLS: Bool = false,
                    caFile: String? = nil) {
            self.user = user
            self.host = host
            self.port = port
            self.database = database
            self.requireTLS = requireTLS
            self.caFile = caFile
        }
    }

    /// The URL parameters understood after `?`.
    static let parameters = ["sslmode", "sslrootcert"]

    /// Parses `Server.Database`: `sqlite`, or `postgres://user@host[:port]/database` with
    /// optional `?sslmode=disable|require` and `&sslrootcert=PATH` (relative to `folder`).
    /// Returns the location, or what is wrong (without the key).
    public static func parse(_ value: String, relativeTo folder: URL) -> Result<DatabaseLocation, Problem> {
        if value == "sqlite" { return .success(.sqlite) }
        let example = "postgres://mi@db.example.com:5432/mi"
        guard value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") else {
            return .failure(Problem("must be \"sqlite\" or a URL like \(example), found \"\(value)\""))
        }
        guard let components = URLComponents(string: value), let host = components.host, !host.isEmpty else {
            return .failure(Problem("is not a valid URL (expected \(example)), found \"\(value)\""))
        }
        if components.password != nil {
            return .failure(Problem("must not hold the password: put it in the file Server.DatabasePasswordFile names"))
        }
        guard let user = components.user, !user.isEmpty else {
            return .failure(Problem("names no user (expected \(example)), found \"\(value)\""))
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            return .failure(Problem("names no database after the host (expected \(example)), found \"\(value)\""))
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            return .failure(Problem("has port \(port), which is not between 1 and 65535"))
        }
        var location = Postgres(user: user, host: host, port: port, database: database)
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value {
                case "disable": location.requireTLS = false
                case "require": location.requireTLS = true
                default:
                    return .failure(Problem("sslmode must be \"disable\" or \"require\" (TLS, always verified), found \"\(item.value ?? "")\""))
                }
            case "sslrootcert":
                guard let path = item.value, !path.isEmpty else {
                    return .failure(Problem("sslrootcert needs the path of a CA bundle"))
                }
                location.caFile = ConfigurationLoader.resolve(path, against: folder).path
            default:
                return .failure(Problem("has the unknown parameter \"\(item.name)\" (known: \(parameters.joined(separator: ", ")))"))
            }
        }
        if location.caFile != nil, !location.requireTLS {
            return .failure(Problem("sslrootcert is given without sslmode=require: add it, or TLS is not used"))
        }
        return .success(.postgres(location))
    }

    /// What is wrong with a `Server.Database` value.
    public struct Problem: Error, Sendable, Equatable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }
}
