import Foundation
import Hummingbird
import MIKit

/// The review's API behind the bearer token: `PATCH Server.Paths.Submit/{id}` (a foreman sets
/// the state), `GET Server.Paths.Submit/{id}/review` (state, history, open flags),
/// `POST Server.Paths.Submit/{id}/send-back` (a foreman flags questions and sends the form
/// back), `GET /api/v1/returned` (the forms sent back to the caller), and the stored versions:
/// `GET Server.Paths.Submit/{id}/versions` (every version's receipt), `…/versions/{n}`
/// (`{"receipt": …, "form": <that version's form.json>}`) and `…/diff?from=N&to=M` (what
/// changed; `to` defaults to the current version, `from` to the one before `to`).
struct ReviewController {
    static let returnedPath = "/api/v1/returned"

    let path: String
    let service: ReviewService
    let sessions: SessionMiddleware

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.patch(RouterPath(path + "/{id}"), use: change)
        routes.get(RouterPath(path + "/{id}/review"), use: review)
        routes.post(RouterPath(path + "/{id}/send-back"), use: sendBack)
        routes.get(RouterPath(Self.returnedPath), use: returned)
        routes.get(RouterPath(path + "/{id}/versions"), use: versions)
        routes.get(RouterPath(path + "/{id}/versions/{version}"), use: version)
        routes.get(RouterPath(path + "/{id}/diff"), use: diff)
        return routes
    }

    @Sendable func versions(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let versions = try await service.versions(of: try context.parameters.require("id"), session: session)
        await context.audit.record(.submissionView, actor: session.sub, subject: versions.id.description, detail: "versions (API)")
        return try JSONResponse.make(.ok, versions)
    }

    @Sendable func version(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let receipt = try await service.version(try context.parameters.require("version"), of: try context.parameters.require("id"),
                                                session: session)
        let (_, form) = try await SubmissionAccess.form(of: receipt, layout: service.layout)
        await context.audit.record(.submissionView, actor: session.sub, subject: receipt.id.description,
                                   detail: "version \(receipt.storedVersion) (API)")
        // The form as stored, byte for byte, inside the answer.
        var body = Data("{\"receipt\":".utf8)
        body += try WireJSON.encoder().encode(receipt)
        body += Data(",\"form\":".utf8)
        body += form
        body += Data("}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                         body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    @Sendable func diff(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let id = try context.parameters.require("id")
        // An empty parameter is an absent one, as the office's forms send them.
        let query = SubmissionListController.parameters(of: request)
        for name in ["from", "to"] {
            // Digits too many for a number are a version the form does not have (404).
            if let value = query[name], !value.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
                throw HTTPError(.badRequest, message: "parameter `\(name)` is \"\(SafeName.printable(value))\" — give a version number (1, 2, …)")
            }
        }
        let diff = try await service.diff(try await service.versions(of: id, session: session), from: query["from"], to: query["to"])
        await context.audit.record(.submissionView, actor: session.sub, subject: diff.id.description,
                                   detail: "diff \(diff.from)→\(diff.to) (API)")
        return try JSONResponse.make(.ok, diff)
    }

    @Sendable func review(_ request: Request, context: ServerContext) async throws -> Response {
        try JSONResponse.make(.ok, try await service.review(of: try context.parameters.require("id"), session: try context.requireSession()))
    }

    @Sendable func change(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "change a submission's review state")
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let (state, note) = try Self.change(Data(buffer: body))
        let review = try await service.change(try context.parameters.require("id"), to: state, note: note, session: session)
        await context.auditReviewState(review.id.description, session: session, state: state, note: note)
        return try JSONResponse.make(.ok, review)
    }

    @Sendable func sendBack(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "send a form back")
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let sendBack: SendBackRequest
        do {
            sendBack = try WireJSON.decoder().decode(SendBackRequest.self, from: Data(buffer: body))
        } catch {
            throw HTTPError(.badRequest, message: "the body must be JSON {\"note\": \"…\", \"flags\": [{\"question\": \"PATH\", \"note\": \"…\"}]} — flags may be [] when the note says it all")
        }
        let review = try await service.sendBack(try context.parameters.require("id"), sendBack, session: session)
        await context.auditSendBack(review.id.description, session: session, flags: sendBack.flags, note: sendBack.note)
        return try JSONResponse.make(.ok, review)
    }

    @Sendable func returned(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        let user = request.uri.queryParameters["user"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        return try JSONResponse.make(.ok, try await service.returned(session: session, user: user))
    }

    /// The PATCH body's state and note: 400 when it is not a JSON object with a text
    /// `reviewState` (and, if present, a text or null `note`); 422 for a state MI does not know.
    static func change(_ body: Data) throws -> (ReviewState, String?) {
        let shape = "the body must be JSON {\"reviewState\": \"\(ReviewService.settableList.replacingOccurrences(of: ", ", with: "|"))\", \"note\": \"…\"}"
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let name = object["reviewState"] as? String else {
            throw HTTPError(.badRequest, message: shape)
        }
        let given = object["note"]
        var note: String?
        if let text = given as? String {
            note = text
        } else if given != nil, !(given is NSNull) {
            throw HTTPError(.badRequest, message: "\"note\" must be text — \(shape)")
        }
        guard let state = ReviewState(rawValue: name) else {
            throw HTTPError(.unprocessableContent, message: "\"\(SafeName.printable(name))\" is not a review state — choose one of \(ReviewService.settableList)")
        }
        return (state, note)
    }
}
