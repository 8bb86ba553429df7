import Foundation
import Hummingbird
import MIKit

/// The office's side of the review: the panel on `/submissions/{id}` (the state and its
/// history for everyone who may read the submission; for foremen a form to change the state
/// with a note and a send-back form to tick questions with a note each) and what those forms
/// post, `POST /submissions/{id}/review` and `POST /submissions/{id}/send-back` (CSRF-checked
/// as every office form; 303 back to the page). The rules are `ReviewService`'s, as for the API.
struct ReviewPage {
    /// The send-back form's field of a ticked question: `flag:` then its answer path.
    static let flagPrefix = "flag:"
    /// The send-back form's field of a flag's note: `note:` then the answer path.
    static let flagNotePrefix = "note:"

    let service: ReviewService

    func register(on pages: RouteCollection<ServerContext>) {
        pages.post("submissions/{id}/review", use: change)
        pages.post("submissions/{id}/send-back", use: sendBack)
    }

    @Sendable func change(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "change a submission's review state")
        let form = OfficeForm(try await request.body.collect(upTo: CSRFMiddleware.maximumFormBytes))
        let name = form["reviewState"] ?? ""
        guard let state = ReviewState(rawValue: name) else {
            throw HTTPError(.unprocessableContent, message: "\"\(SafeName.printable(name))\" is not a review state — choose one of \(ReviewService.settableList)")
        }
        let review = try await service.change(try context.parameters.require("id"), to: state, note: form["note"], session: session)
        await context.auditReviewState(review.id.description, session: session, state: state, note: form["note"])
        return OfficeViews.redirect(to: "/submissions/\(review.id)#review")
    }

    @Sendable func sendBack(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireForeman(toDo: "send a form back")
        let form = OfficeForm(try await request.body.collect(upTo: CSRFMiddleware.maximumFormBytes))
        let flags = form.fields.keys.filter { $0.hasPrefix(Self.flagPrefix) }.sorted().map { field in
            let path = String(field.dropFirst(Self.flagPrefix.count))
            return ReviewFlag(question: path, note: form[Self.flagNotePrefix + path] ?? "")
        }
        let review = try await service.sendBack(try context.parameters.require("id"), SendBackRequest(note: form["note"], flags: flags),
                                                session: session)
        await context.auditSendBack(review.id.description, session: session, flags: flags, note: form["note"])
        return OfficeViews.redirect(to: "/submissions/\(review.id)#review")
    }

    /// The panel's values for submission `receipt` (its stored `form`) as `session` sees it.
    func values(_ receipt: Receipt, form: Form, session: SessionClaims) async throws -> [String: Any] {
        let review = try await service.review(of: receipt.id)
        let flagged = Dictionary(review.flags.map { ($0.question, $0.note) }, uniquingKeysWith: { first, _ in first })
        var values: [String: Any] = [
            "id": receipt.id.description,
            "state": review.reviewState.rawValue,
            "stateLabel": review.reviewState.label,
            "hasHistory": !review.history.isEmpty,
            "history": review.history.map { event -> [String: Any] in
                var values: [String: Any] = ["at": OfficeFormat.dateTime(event.at), "by": event.by,
                                             "state": event.reviewState.rawValue, "stateLabel": event.reviewState.label]
                if let note = event.note { values["note"] = note }
                return values
            },
            "hasFlags": !review.flags.isEmpty,
            "flags": review.flags.map { ["question": $0.question, "note": $0.note] },
            "isForeman": session.role == .foreman,
        ]
        if let sendBack = review.sendBack {
            var open: [String: Any] = ["by": sendBack.by, "at": OfficeFormat.dateTime(sendBack.at)]
            if let note = sendBack.note { open["note"] = note }
            values["sendBack"] = open
        }
        if session.role == .foreman {
            // A state only the server sets (`edited`) is shown selected, not offered.
            if !ReviewState.settable.contains(review.reviewState) { values["serverState"] = review.reviewState.label }
            values["states"] = ReviewState.settable.map { state -> [String: Any] in
                ["value": state.rawValue, "label": state.label, "current": state == review.reviewState]
            }
            values["questions"] = form.slots.filter { $0.question.type.takesAnswer }.enumerated().map { position, slot -> [String: Any] in
                [
                    "path": slot.key, "text": slot.question.text, "number": slot.index + 1, "field": position,
                    "flagged": flagged[slot.key] != nil, "flagNote": flagged[slot.key] ?? "",
                ]
            }
        }
        return values
    }
}
