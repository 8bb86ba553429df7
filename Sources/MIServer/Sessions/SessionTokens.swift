import Crypto
import Foundation
import MIDirectory
import MIKit

/// Who a session token speaks for, and until when.
public struct SessionClaims: Codable, Sendable, Equatable {
    /// The user name, as the directory spells it.
    public var sub: String
    public var role: Actor.Role
    /// The display name.
    public var name: String
    /// Expiry, in seconds since 1970.
    public var exp: Int64
    /// Whether the user may publish templates (`PublishRight`, decided at sign-in). Tokens
    /// signed before it was carried lack it; `SessionTokens.verify` fills it in.
    public var pub: Bool?
    /// The token's own id (random), by which signing out revokes it (`SessionRevocations`).
    /// Tokens signed before it was carried lack it: they are revoked by their digest instead.
    public var jti: String?

    public init(sub: String, role: Actor.Role, name: String, exp: Int64, pub: Bool? = nil, jti: String? = nil) {
        self.sub = sub
        self.role = role
        self.name = name
        self.exp = exp
        self.pub = pub
        self.jti = jti
    }

    public var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(exp)) }

    /// Whether the session may publish templates (in the office's editor and upload).
    public var mayPublish: Bool { pub ?? false }
}

/// Signed, self-contained session tokens: `base64url(JSON claims) "." base64url(HMAC-SHA256)`,
/// the MAC taken over the first part's ASCII bytes. Nothing is stored on the server for a
/// valid token, so a token outlives a restart as long as `signing.key` does; a token ended
/// early (signing out) is listed in `revocations` until it would have expired.
struct SessionTokens: Sendable {
    /// The 32 bytes of `signing.key` (swift-crypto's `SymmetricKey` is not `Sendable`).
    let keyBytes: [UInt8]
    /// How long a token lasts (`Server.TokenMinutes`).
    let lifetime: TimeInterval
    /// Whether `LDAP.AdminGroup` is configured: a token without the publish right then has none.
    var adminGroupConfigured = false
    /// The sessions signed out before their expiry, shared by every server of the data folder.
    var revocations: SessionRevocations?

    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    func issue(for user: DirectoryUser, now: Date) throws -> (token: String, claims: SessionClaims) {
        let expiry = Int64((now.timeIntervalSince1970 + lifetime).rounded(.down))
        let id = Base64URL.encode(Data((0..<16).map { _ in UInt8.random(in: 0...255) }))
        let claims = SessionClaims(sub: user.userName, role: user.role, name: user.displayName, exp: expiry,
                                   pub: user.mayPublish, jti: id)
        return (try sign(claims), claims)
    }

    func sign(_ claims: SessionClaims) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = Base64URL.encode(try encoder.encode(claims))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)
        return payload + "." + Base64URL.encode(Data(mac))
    }

    /// The claims of a token this server signed that has not expired; nil for anything else.
    /// The MAC is checked (in constant time) before the payload is even decoded.
    func verify(_ token: String, now: Date) -> SessionClaims? {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 4096, pieces.count == 2,
              let mac = Base64URL.decode(pieces[1]), mac.count == SHA256.byteCount,
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(pieces[0].utf8), using: key),
              let payload = Base64URL.decode(pieces[0]),
              var claims = try? JSONDecoder().decode(SessionClaims.self, from: payload)
        else { return nil }
        guard TimeInterval(claims.exp) > now.timeIntervalSince1970 else { return nil }
        if let revocations, revocations.isRevoked(id: Self.id(of: token, claims: claims), now: now) { return nil }
        if claims.pub == nil {
            claims.pub = PublishRight.allows(role: claims.role, adminGroupConfigured: adminGroupConfigured,
                                             adminGroupMember: nil)
        }
        return claims
    }

    /// Ends the session of `token` (a valid one) on every server sharing the data folder.
    func revoke(_ token: String, claims: SessionClaims) throws {
        try revocations?.revoke(id: Self.id(of: token, claims: claims), expires: claims.exp)
    }

    /// The id a token is revoked by: its `jti`, or for a token without one its SHA-256.
    static func id(of token: String, claims: SessionClaims) -> String {
        claims.jti.flatMap { SessionRevocations.isValidID($0) ? $0 : nil } ?? FileDigest.sha256(of: Data(token.utf8))
    }

    /// The office's CSRF token for a browser secret (its session cookie, or before sign-in its
    /// sign-in cookie): an HMAC, so nothing is stored, and a page of one browser is no use to another.
    func csrfToken(binding: String) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(("csrf\u{0}" + binding).utf8), using: key)))
    }

    /// Whether `token` is the CSRF token for `binding`, compared in constant time.
    func isValidCSRFToken(_ token: String, binding: String) -> Bool {
        guard token.utf8.count <= 128, let mac = Base64URL.decode(token), mac.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(("csrf\u{0}" + binding).utf8), using: key)
    }
}
