import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import MIDirectory
import MIKit
import NIOCore
import ServiceLifecycle
import UnixSignals

/// One route as registered: method and path (`{id}` for a parameter), as openapi.yaml spells it.
public struct RegisteredRoute: Hashable, Sendable, CustomStringConvertible {
    public var method: String
    public var path: String
    /// A page or asset of the office web app (not in openapi.yaml; errors as HTML pages).
    public var office: Bool
    public init(method: String, path: String, office: Bool = false) {
        self.method = method
        self.path = path
        self.office = office
    }
    public var description: String { "\(method) \(path)" }
}

/// The router with the list of what was registered on it.
public struct ServerRouter {
    public let router: Router<ServerContext>
    public let routes: [RegisteredRoute]
}

/// What the routes need, made once by `buildApplication`.
struct ServerServices: Sendable {
    let configuration: Configuration
    let directory: any DirectoryService
    let layout: DataLayout
    let tokens: SessionTokens
    let templates: TemplateCatalog
    let repository: any SubmissionRepository
    /// Resumable (tus) uploads, taken into submissions by the submission endpoint.
    let uploads: ResumableUploads
    /// The office's views (parsed once at start-up).
    let views: OfficeViews
    /// Failed sign-ins, shared by the API's session endpoint and the office's `/login`.
    let signInLimiter: SignInLimiter
    /// The directory's technicians, looked up for uploaded forms (`SubmissionAcceptance`).
    let technicians: TechnicianLookup
    /// The review states and send-backs, in the submissions' database.
    let reviews: any ReviewStore
    /// The audit log, in the database of the submissions (`AuditLog`).
    let audit: AuditLog
    let now: @Sendable () -> Date

    /// The stored submissions of a template, read whole (statistics, exports).
    var storedForms: StoredForms { StoredForms(repository: repository, layout: layout) }
    var statistics: StoredStatistics { StoredStatistics(forms: storedForms, catalog: templates) }
    var review: ReviewService { ReviewService(store: reviews, repository: repository, layout: layout, now: now) }
}

/// Builds mi-server: prepares `Server.DataDirectory` (owner-only folder, signing key, SQLite
/// database), removes what an interrupted run left behind, loads the templates and sets up
/// the routes. Throws `ServerSetupError` (or a store error) with a message for the administrator.
public func buildApplication(configuration: Configuration, directory: any DirectoryService,
                             logger: Logger? = nil) async throws -> some ApplicationProtocol {
    try await makeApplication(configuration: configuration, directory: directory, logger: logger, now: { Date() })
}

func makeApplication(configuration: Configuration, directory: any DirectoryService, logger: Logger?,
                     now: @escaping @Sendable () -> Date) async throws -> some ApplicationProtocol {
    let logger = logger ?? Logger(label: "mi-server")
    let services = try await makeServices(configuration: configuration, directory: directory, logger: logger, now: now)
    let built = buildRouter(services)
    guard let address = ConfigurationLoader.listenAddress(configuration.server.listen) else {
        throw ServerSetupError.listenAddress(configuration.server.listen)
    }
    // Idle connections are closed by `LimitedHTTP1Channel` after Server.IdleTimeoutSeconds;
    // Hummingbird's own idle timer stays a backstop well beyond it.
    let backstop = Int64(max(300, configuration.server.limits.idleTimeoutSeconds * 2))
    let http = HTTPServerBuilder.http1AnsweringContinue(idleTimeout: .seconds(backstop), limits: configuration.server.limits)
    var server = http
    var background: [any Service] = [UploadExpiryService(uploads: services.uploads)]
    if let files = configuration.server.tls {
        let certificates = try TLSCertificates(files: files)
        server = try .tls(http, tlsConfiguration: certificates.serverConfiguration())
        background.append(TLSReloadService(certificates: certificates, signals: await UnixSignalsSequence(trapping: .sighup),
                                           logger: logger))
    }
    let scheme = configuration.server.tls == nil ? "http" : "https"
    return Application(
        router: built.router,
        server: server,
        configuration: .init(address: .hostname(address.host, port: address.port), serverName: "mi-server"),
        services: background,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? address.port
            FileHandle.standardError.write(Data("mi-server listening on \(scheme)://\(address.host):\(port)\n".utf8))
        },
        logger: logger)
}

func makeServices(configuration: Configuration, directory: any DirectoryService, logger: Logger,
                  now: @escaping @Sendable () -> Date) async throws -> ServerServices {
    var layout = DataLayout(root: configuration.server.dataDirectory)
    let keyFile = configuration.server.signingKeyFile.map { URL(fileURLWithPath: $0) } ?? layout.signingKey
    let shared = configuration.server.database != .sqlite
    let (instance, key) = try await Blocking.run { [layout] in
        try layout.prepare()
        let instance = try DataDirectoryLock.acquire(in: layout.root, shared: shared)
        return (instance, try SigningKey.loadOrCreate(at: keyFile, logger: logger))
    }
    layout.instance = instance
    let revocations = SessionRevocations(file: layout.revokedSessions)
    try await Blocking.run { try revocations.prune(now: now()) }
    let repository = try await openRepository(configuration.server, layout: layout, logger: logger)
    let reviews = try await openReviewStore(beside: repository, logger: logger)
    try await SubmissionBackfill.run(repository: repository, layout: layout, logger: logger)
    try await layout.removeLeftovers(repository: repository, logger: logger)
    let audit = AuditLog(store: try await AuditLog.openStore(beside: repository, logger: logger), logger: logger, now: now)
    let templates = TemplateCatalog(folder: configuration.server.templatesDirectory,
                                    keys: configuration.templateKeys, logger: logger)
    _ = try await Blocking.run { templates.templates() }
    let uploads = ResumableUploads(folder: layout.uploads, staging: layout.receiving, expiryHours: configuration.server.resumableExpiryHours,
                                   now: now, logger: logger)
    await uploads.removeExpired()
    return ServerServices(
        configuration: configuration, directory: directory, layout: layout,
        tokens: SessionTokens(keyBytes: key, lifetime: TimeInterval(configuration.server.tokenMinutes) * 60,
                              adminGroupConfigured: configuration.ldap.adminGroup != nil, revocations: revocations),
        templates: templates, repository: repository, uploads: uploads, views: try OfficeViews(),
        signInLimiter: SignInLimiter(), technicians: TechnicianLookup(directory: directory, now: now), reviews: reviews, audit: audit, now: now)
}

/// The repository `Server.Database` names: SQLite in the data directory, or PostgreSQL with the
/// password from `Server.DatabasePasswordFile`.
func openRepository(_ server: Configuration.Server, layout: DataLayout, logger: Logger) async throws
    -> any SubmissionRepository {
    switch server.database {
    case .sqlite:
        do {
            return try SQLiteSubmissionRepository(path: layout.database.path)
        } catch {
            throw ServerSetupError.database(path: layout.database.path, detail: "\(error)")
        }
    case .postgres(let location):
        let password = try await databasePassword(server)
        let shown = "postgres://\(location.user)@\(location.host):\(location.port)/\(location.database)"
        do {
            return try await PostgresSubmissionRepository(location: location, password: password, logger: logger)
        } catch {
            throw ServerSetupError.postgres(url: shown, detail: PostgresSubmissionRepository.reason(error))
        }
    }
}

/// The first line of `Server.DatabasePasswordFile`, nil when none is named.
func databasePassword(_ server: Configuration.Server) async throws -> String? {
    guard let file = server.databasePasswordFile else { return nil }
    do {
        let text = try await Blocking.run { try String(contentsOfFile: file, encoding: .utf8) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
    } catch {
        throw ServerSetupError.databasePasswordFile(path: file, reason: (error as NSError).localizedDescription)
    }
}

/// The routes, from `Server.Paths`: `/health`; the session; the templates, the submissions and
/// the resumable uploads behind the bearer token; and the office web app.
func buildRouter(_ services: ServerServices) -> ServerRouter {
    // HEAD on a GET route answers as GET without the body (its Content-Length kept): `curl -I`.
    let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
    let table = RouteTable()
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ErrorMiddleware(routes: table, views: services.views, tokens: services.tokens, now: services.now))
    let recorder = RouteRecorder(router: router)
    let paths = services.configuration.server.paths
    router.add(middleware: AuditMiddleware(log: services.audit, trustedProxies: Set(services.configuration.server.trustedProxies),
                                           submitPath: paths.submit, tokens: services.tokens, now: services.now))
    let sessions = SessionMiddleware(tokens: services.tokens, now: services.now)
    let signIn = SignIn(directory: services.directory, limiter: services.signInLimiter,
                        trustedProxies: Set(services.configuration.server.trustedProxies), now: services.now)
    recorder.addRoutes(HealthController().endpoints)
    recorder.addRoutes(SessionController(path: paths.session, signIn: signIn, tokens: services.tokens, now: services.now).endpoints)
    recorder.addRoutes(TemplateController(listPath: paths.templateList, templatePath: paths.template,
                                          catalog: services.templates, sessions: sessions).endpoints)
    recorder.addRoutes(StatisticsController(templatePath: paths.template, statistics: services.statistics,
                                            sessions: sessions).endpoints)
    recorder.addRoutes(ExportController(templatePath: paths.template, statistics: services.statistics, layout: services.layout,
                                        sessions: sessions, now: services.now).endpoints)
    let intake = SubmissionIntake(layout: services.layout, repository: services.repository, reviews: services.reviews,
                                  maxUploadBytes: services.configuration.server.maxUploadBytes, resumable: services.uploads,
                                  acceptance: SubmissionAcceptance(technicians: services.technicians, catalog: services.templates,
                                                                   acceptSimulated: services.configuration.server.acceptSimulated),
                                  now: services.now)
    recorder.addRoutes(SubmissionController(path: paths.submit, layout: services.layout, repository: services.repository,
                                            sessions: sessions, intake: intake).endpoints)
    recorder.addRoutes(ReviewController(path: paths.submit, service: services.review, sessions: sessions).endpoints)
    recorder.addRoutes(ResumableUploadController(path: paths.uploads, uploads: services.uploads, sessions: sessions,
                                                 maxUploadBytes: services.configuration.server.maxUploadBytes).endpoints)
    recorder.addRoutes(AuditController(store: services.audit.store, sessions: sessions).endpoints)
    recorder.office = true
    for collection in officeRoutes(services, signIn: signIn) {
        recorder.addRoutes(collection)
    }
    table.set(recorder.routes)
    return ServerRouter(router: router, routes: recorder.routes)
}

/// Forwards registrations to the router and remembers them, so the route list (and the test
/// comparing it with openapi.yaml) comes from what was really registered.
private final class RouteRecorder: RouterMethods {
    typealias Context = ServerContext
    let router: Router<ServerContext>
    private(set) var routes: [RegisteredRoute] = []
    /// Whether the routes being added are the office's.
    var office = false

    init(router: Router<ServerContext>) { self.router = router }

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method,
                                      responder: Responder) -> Self where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        routes.append(RegisteredRoute(method: method.rawValue, path: path.description, office: office))
        return self
    }

    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
