import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIKit

/// The server's audit log: one append-only, hash-chained row per sign-in (failed ones too),
/// view of a submission, media download, export, upload (stored or refused), template publish,
/// review-state change and send-back. See docs/audit.md.
///
/// Recording never fails the request it describes: a row that cannot be written is logged as
/// an error (and `audit verify` still sees an intact chain without it).
final class AuditLog: Sendable {
    let store: any AuditStore
    private let logger: Logger
    private let now: @Sendable () -> Date

    init(store: any AuditStore, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.logger = logger
        self.now = now
    }

    /// Appends `entry`, stamped now. What the review code calls (through `AuditTrail.record`
    /// when it has the request's context, which knows the address).
    func record(_ entry: AuditEntry) async {
        do {
            _ = try await store.append(entry, at: now())
        } catch {
            logger.error("audit row not written", metadata: [
                "action": .string(entry.action.rawValue), "actor": .string(entry.actor), "subject": .string(entry.subject),
                "error": .string(String(describing: error)),
            ])
        }
    }

    /// The store in the submissions' database, through `repository`'s own pool or client.
    static func openStore(beside repository: any SubmissionRepository, logger: Logger) async throws -> any AuditStore {
        if let sqlite = repository as? SQLiteSubmissionRepository {
            let pool = sqlite.pool
            return try await Blocking.run { try SQLiteAuditStore(pool: pool) }
        }
        if let postgres = repository as? PostgresSubmissionRepository {
            return try await PostgresAuditStore(repository: postgres, logger: logger)
        }
        throw ReviewStoreUnavailable(engine: String(describing: type(of: repository)))
    }
}

/// The audit log as a request sees it: the log (nil when none is set up, as in tests of a
/// single controller) and the client's address, put in the context by `AuditMiddleware`.
struct AuditTrail: Sendable {
    var log: AuditLog?
    var address: String

    static let off = AuditTrail(log: nil, address: "unknown")

    /// Appends one row for this request's client.
    func record(_ action: AuditAction, actor: String, subject: String, detail: String = "") async {
        await log?.record(AuditEntry(action: action, actor: actor, address: address, subject: subject, detail: detail))
    }
}

/// Sets `context.audit` for every request (the log and the client's address, as
/// `ClientAddress` resolves it behind `Server.TrustedProxies`), and records refused uploads:
/// every `POST`/`PUT` of `Server.Paths.Submit` not answered 2xx as `upload-refused` with the
/// status and the sentence the client got. An upload taken is recorded by `SubmissionController`,
/// which knows the form's id (a `POST` names it only in its body).
struct AuditMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let log: AuditLog
    let trustedProxies: Set<String>
    let submitPath: String
    let tokens: SessionTokens
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.audit = AuditTrail(log: log, address: ClientAddress.of(request, context: context, trusted: trustedProxies))
        guard let subject = uploadSubject(request) else { return try await next(request, context) }
        let actor = tokens.bearerClaims(request, now: now())?.sub ?? ""
        do {
            let response = try await next(request, context)
            if !(200..<300).contains(response.status.code) {
                await context.audit.record(.uploadRefused, actor: actor, subject: subject, detail: "\(response.status.code)")
            }
            return response
        } catch {
            await context.audit.record(.uploadRefused, actor: actor, subject: subject, detail: Self.describe(error))
            throw error
        }
    }

    /// The form id of an upload request (from `PUT …/{id}`; "" for `POST`), nil for any other request.
    private func uploadSubject(_ request: Request) -> String? {
        let path = request.uri.path
        if request.method == .post, path == submitPath { return "" }
        guard request.method == .put, path.hasPrefix(submitPath + "/") else { return nil }
        let id = path.dropFirst(submitPath.count + 1)
        guard !id.isEmpty, !id.contains("/") else { return nil }
        let text = String(id).removingPercentEncoding ?? String(id)
        return FormID(text)?.description ?? SafeName.printable(text)
    }

    /// "413: the upload is larger than …": the status and the sentence the client is told.
    static func describe(_ error: any Error) -> String {
        if let refusal = HTTPRefusal(error) {
            return "\(refusal.status.code): \(refusal.message ?? refusal.status.reasonPhrase)"
        }
        if let error = error as? any HTTPResponseError { return "\(error.status.code)" }
        return "not stored: \(error)"
    }
}
