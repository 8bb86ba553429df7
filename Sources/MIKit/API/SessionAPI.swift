import Foundation

/// The body of `POST /api/v1/session`: directory credentials.
public struct SessionRequest: Codable, Sendable, Equatable {
    /// The directory user name.
    public var user: String
    /// The directory password; sent only over this request, never stored.
    public var password: String

    /// Credentials to log in with.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// The answer to `POST /api/v1/session`: a signed token, who logged in, with which role, until when.
public struct ServerSession: Codable, Sendable, Equatable {
    /// Sent as `Authorization: Bearer <token>` on every other request.
    public var token: String
    /// The user name as the directory spells it.
    public var user: String
    /// The name to greet the user with (from the directory).
    public var displayName: String
    /// What the user may do, from membership of `LDAP.ForemanGroup`.
    public var role: Actor.Role
    /// When the token stops working (then: `mi login` again).
    public var expiresAt: Date

    /// A session as the server issues it.
    public init(token: String, user: String, displayName: String, role: Actor.Role, expiresAt: Date) {
        self.token = token
        self.user = user
        self.displayName = displayName
        self.role = role
        self.expiresAt = expiresAt
    }
}
