import Hummingbird
import NIOCore

/// The request context of every route: the core storage plus the session the bearer token
/// established (set by `SessionMiddleware`).
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The logged-in user; nil on routes that need no token.
    public var session: SessionClaims?
    /// The office's CSRF token for this browser (set by the office middlewares), for the forms
    /// and scripts a page renders; nil on API requests.
    public var csrfToken: String?
    /// The client's address, for the log when a request fails by the client's fault.
    public var remoteAddress: SocketAddress?
    /// The audit log and this request's client address (set by `AuditMiddleware`).
    var audit = AuditTrail.off

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        session = nil
        csrfToken = nil
        remoteAddress = source.channel.remoteAddress
    }

    /// JSON bodies (the session request) are small; uploads stream and are limited by
    /// `Server.MaxUploadBytes` instead.
    public var maxUploadSize: Int { 64 * 1024 }
}
