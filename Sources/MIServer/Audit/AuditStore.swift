import Foundation
import MIKit

/// Where the audit rows live: table `audit_event` (seq, at, actor, address, action, subject,
/// detail, prev_sha256, sha256) and its one-row head `audit_head` (the last row's seq and hash,
/// so removing the newest rows is found too), in the database the submissions use. Appends
/// are serialized (the head row is locked), so the chain stays one line with several servers.
protocol AuditStore: Sendable {
    /// Appends `entry` as the row after the current head, stamped `date`.
    func append(_ entry: AuditEntry, at date: Date) async throws -> AuditRecord
    /// The rows `query` selects, newest first: up to `query.limit + 1` (the extra one tells
    /// whether there is a next page).
    func events(_ query: AuditQuery) async throws -> [AuditRecord]
    /// Reads the head, then every row up to it in order, and checks the chain.
    func verify() async throws -> AuditVerification
}

extension AuditStore {
    /// A page of `query`, with the cursor of the next one.
    func page(_ query: AuditQuery) async throws -> AuditPage {
        let rows = try await events(query)
        let page = Array(rows.prefix(query.limit))
        return AuditPage(events: page, nextCursor: rows.count > query.limit ? page.last.map { String($0.seq) } : nil)
    }
}
