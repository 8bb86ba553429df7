import Hummingbird

/// The request context of every route: the core storage plus the session the bearer token
/// established (set by `SessionMiddleware`).
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The logged-in user; nil on routes that need no token.
    public var session: SessionClaims?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        session = nil
    }

    /// JSON bodies (the session request) are small; uploads stream and are limited by
    /// `Server.MaxUploadBytes` instead.
    public var maxUploadSize: Int { 64 * 1024 }
}
