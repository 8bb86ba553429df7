import Foundation
import MIKit

/// The audit log's rows for the review, written the same way from the API and the office.
extension ServerContext {
    /// A foreman set submission `id`'s review state.
    func auditReviewState(_ id: String, session: SessionClaims, state: ReviewState, note: String?) async {
        await audit.record(.reviewState, actor: session.sub, subject: id,
                           detail: state.rawValue + (note.map { $0.isEmpty ? "" : ": \($0)" } ?? ""))
    }

    /// A foreman sent submission `id` back with `flags`.
    func auditSendBack(_ id: String, session: SessionClaims, flags: [ReviewFlag], note: String?) async {
        let questions = flags.map(\.question).joined(separator: ", ")
        await audit.record(.sendBack, actor: session.sub, subject: id,
                           detail: "\(flags.count) flag(s)\(questions.isEmpty ? "" : ": \(questions)")\(note.map { $0.isEmpty ? "" : " — \($0)" } ?? "")")
    }
}
