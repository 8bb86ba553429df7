import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who logged in, checked against the directory: kept between commands so each one knows the
/// user without asking again. Never holds a password.
public struct Session: Codable, Sendable, Equatable {
    public var user: String
    public var dn: String
    public var displayName: String
    public var role: Actor.Role
    /// The directory (LDAP.URL) the login was checked against.
    public var directory: String
    public var loginAt: Date
    public var expiresAt: Date
    /// mi-server's token, when the server was reachable at login.
    public var serverToken: String?
    public var serverTokenExpiresAt: Date?

    public init(user: String, dn: String, displayName: String, role: Actor.Role, directory: String,
                loginAt: Date, expiresAt: Date) {
        self.user = user
        self.dn = dn
        self.displayName = displayName
        self.role = role
        self.directory = directory
        self.loginAt = loginAt
        self.expiresAt = expiresAt
    }

    public var actor: Actor { Actor(name: user, role: role) }

    /// The server token while it is still valid.
    public func validServerToken(now: Date) -> String? {
        guard let serverToken, let expires = serverTokenExpiresAt, expires > now else { return nil }
        return serverToken
    }
}

/// The session file, `$XDG_STATE_HOME/mi/session.json` (`~/.local/state/mi/` by default):
/// owner-only (file 0600, folder 0700), written atomically, outside Documents.
public struct SessionStore: Sendable {
    public let folder: URL
    public var file: URL { folder.appendingPathComponent("session.json") }

    public init(environment: [String: String]) {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            folder = URL(fileURLWithPath: state).appendingPathComponent("mi")
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            folder = URL(fileURLWithPath: home).appendingPathComponent(".local/state/mi")
        }
    }

    /// The saved session, or nil when there is none.
    public func load() throws -> Session? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        do {
            return try FormFile.decoder().decode(Session.self, from: data)
        } catch {
            throw SessionError.unreadable(file.path)
        }
    }

    public func save(_ session: Session) throws {
        try DurableFile.makeFolder(folder)
        chmod(folder.path, 0o700)
        let encoder = FormFile.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        try DurableFile.write(try encoder.encode(session), to: file, permissions: 0o600)
    }

    /// Removes the session; true when there was one.
    @discardableResult
    public func remove() throws -> Bool {
        guard FileManager.default.fileExists(atPath: file.path) else { return false }
        guard unlink(file.path) == 0 else { throw DurableFile.error("remove", file) }
        try DurableFile.syncFolder(folder)
        return true
    }

    /// The session of the user at the terminal, valid now and for this directory.
    public func current(directory: String, now: Date) throws -> Session {
        guard let session = try load() else { throw SessionError.notLoggedIn }
        guard session.directory == directory else { throw SessionError.otherDirectory(session.directory) }
        guard session.expiresAt > now else { throw SessionError.expired(session.expiresAt) }
        return session
    }
}

/// Why the session does not allow a command: no login, an expired one, the wrong role, or no
/// token for mi-server.
public enum SessionError: ClassifiedError, Sendable, Equatable {
    case notLoggedIn
    case expired(Date)
    case otherDirectory(String)
    case unreadable(String)
    /// The command is for `allowed` roles; `user` is logged in as `role`.
    case wrongRole(allowed: Set<Actor.Role>, user: String, role: Actor.Role)
    /// The login happened while mi-server was unreachable, so there is no server token.
    case offlineLogin
    /// The server token expired before the local session did.
    case serverTokenExpired

    public var failureClass: FailureClass { .notPermitted }

    public var code: String {
        switch self {
        case .notLoggedIn: return "not-logged-in"
        case .expired: return "session-expired"
        case .otherDirectory: return "other-directory"
        case .unreadable: return "session-unreadable"
        case .wrongRole: return "wrong-role"
        case .offlineLogin: return "offline-login"
        case .serverTokenExpired: return "server-session-expired"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .notLoggedIn: return "not logged in — run `mi login`"
        case .expired: return "your session expired — run `mi login`"
        case .otherDirectory(let directory):
            return "your session is for another directory (\(directory)) — run `mi login`"
        case .unreadable(let path): return "the session file \(path) cannot be read — run `mi login` to replace it"
        case .wrongRole(let allowed, let user, let role):
            let who = allowed == [.foreman] ? "foremen" : allowed == [.technician] ? "technicians" : "technicians and foremen"
            return "this command is for \(who); you (\(user)) are logged in as a \(role.rawValue)"
        case .offlineLogin:
            return "you logged in while mi-server was unreachable — run `mi login` again now that you are online"
        case .serverTokenExpired: return "your server session expired — run `mi login`"
        }
    }
}
