import Foundation
import MIKit

/// Why mi-server cannot start, or cannot store what it received; each message says what to fix.
public enum ServerSetupError: ClassifiedError, Sendable, Equatable {
    /// `Server.Listen` is not `HOST:PORT`.
    case listenAddress(String)
    /// `Server.DataDirectory`, or a file in it, cannot be prepared.
    case dataDirectory(operation: String, path: String, reason: String)
    /// Another mi-server holds the data directory's lock.
    case alreadyRunning(folder: String)
    /// The signing key cannot be read or made; `problem` says what and what to do.
    case signingKey(path: String, problem: String)
    /// The HTTPS certificate or key cannot be read, does not parse, or the two do not belong together.
    case tls(path: String, problem: String)
    /// The SQLite database cannot be opened.
    case database(path: String, detail: String)
    /// `Server.DatabasePasswordFile` cannot be read.
    case databasePasswordFile(path: String, reason: String)
    /// The PostgreSQL database (`Server.Database`, shown without a password) cannot be used.
    case postgres(url: String, detail: String)
    /// A received file cannot be written (the upload fails with 500 and nothing is kept).
    case storage(operation: String, path: String, reason: String)
    /// A view of the office web app embedded in this build does not parse (a defect of the build).
    case officeView(name: String, detail: String)

    public var failureClass: FailureClass {
        switch self {
        case .listenAddress, .dataDirectory, .signingKey, .tls, .database, .databasePasswordFile, .postgres:
            return .configuration
        case .alreadyRunning, .storage: return .refused
        case .officeView: return .internalFailure
        }
    }

    public var code: String {
        switch self {
        case .listenAddress: return "listen-address"
        case .dataDirectory: return "data-directory"
        case .alreadyRunning: return "already-running"
        case .signingKey: return "signing-key"
        case .tls: return "tls-certificate"
        case .database: return "database"
        case .databasePasswordFile: return "database-password-file"
        case .postgres: return "postgres"
        case .storage: return "storage"
        case .officeView: return "office-view"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .listenAddress(let listen):
            return "Server.Listen \"\(listen)\" is not HOST:PORT — fix it in Config.plist"
        case .dataDirectory(let operation, let path, let reason):
            return "cannot \(operation) \(path): \(reason) — check Server.DataDirectory's permissions and that mi-server's user owns it"
        case .alreadyRunning(let folder):
            return "another mi-server is already using \(folder) — stop it first, or give this one its own Server.DataDirectory (several mi-servers share one only when Server.Database is PostgreSQL)"
        case .signingKey(let path, let problem):
            return "the signing key \(path): \(problem)"
        case .tls(let path, let problem):
            return "cannot serve HTTPS: \(path) \(problem)"
        case .database(let path, let detail):
            return "cannot open the database \(path): \(detail) — check Server.DataDirectory's permissions and free space"
        case .databasePasswordFile(let path, let reason):
            return "cannot read Server.DatabasePasswordFile \(path): \(reason) — make it readable by mi-server's user, with the password on its first line"
        case .postgres(let url, let detail):
            return "cannot use the PostgreSQL database \(url): \(detail) — check Server.Database, Server.DatabasePasswordFile and that the database server is running and reachable"
        case .storage(let operation, let path, let reason):
            return "cannot \(operation) \(path): \(reason) — check Server.DataDirectory's free space and permissions"
        case .officeView(let name, let detail):
            return "the office view \(name) in this build does not parse: \(detail) — reinstall mi-server from a good build"
        }
    }
}
