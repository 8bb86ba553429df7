import Foundation
import MIKit

/// A filter and page of the audit log, from `GET /api/v1/audit`'s parameters or the office's
/// `/audit` form: `actor` (exact), `action` (one of `AuditAction`), `from`/`to` (UTC days or
/// instants, as every date filter), `cursor` (a page's `nextCursor`) and `limit` (1–500, 50).
/// Rows come newest first.
struct AuditQuery: Sendable, Equatable {
    static let limits = 1...500
    static let defaultLimit = 50

    var actor: String?
    var action: AuditAction?
    var from: Date?
    /// Exclusive.
    var to: Date?
    /// Rows with a smaller `seq` than this (the last row of the page before).
    var before: Int64?
    var limit = defaultLimit

    init(actor: String? = nil, action: AuditAction? = nil, from: Date? = nil, to: Date? = nil, before: Int64? = nil,
         limit: Int = defaultLimit) {
        self.actor = actor
        self.action = action
        self.from = from
        self.to = to
        self.before = before
        self.limit = limit
    }

    /// Empty values count as absent (a filter form sends its empty fields); anything else that
    /// is not understood is refused with a sentence naming the parameter.
    init(parameters: [(name: String, value: String)]) throws(AuditQueryError) {
        for (name, value) in parameters where !value.isEmpty {
            switch name {
            case "actor": actor = value
            case "action":
                guard let action = AuditAction(rawValue: value) else {
                    throw .invalid(parameter: "action", value: value,
                                   expected: "one of " + AuditAction.allCases.map(\.rawValue).joined(separator: ", "))
                }
                self.action = action
            case "from", "to":
                do {
                    let date = try UTCDay.parse(value, parameter: name, endOfDay: name == "to")
                    if name == "from" { from = date } else { to = date }
                } catch {
                    throw .invalid(parameter: name, value: value, expected: UTCDay.expected)
                }
            case "cursor":
                guard let seq = Int64(value), seq > 0 else {
                    throw .invalid(parameter: "cursor", value: value, expected: "the nextCursor of an earlier page")
                }
                before = seq
            case "limit":
                guard let limit = Int(value), Self.limits.contains(limit) else {
                    throw .invalid(parameter: "limit", value: value,
                                   expected: "a whole number from \(Self.limits.lowerBound) to \(Self.limits.upperBound)")
                }
                self.limit = limit
            default:
                // Unknown parameters (the office's language switch, a cache buster) are ignored,
                // as the submissions listing ignores them.
                continue
            }
        }
    }

    var fromMilliseconds: Int64? { from.map { Int64($0.timeIntervalSince1970 * 1000) } }
    var toMilliseconds: Int64? { to.map { Int64($0.timeIntervalSince1970 * 1000) } }
}

/// A parameter of the audit query that is not understood (400).
enum AuditQueryError: Error, Equatable, LocalizedError {
    case invalid(parameter: String, value: String, expected: String)

    var errorDescription: String? {
        switch self {
        case .invalid(let parameter, let value, let expected):
            return "\(parameter) is \"\(SafeName.printable(value))\" — give \(expected)"
        }
    }
}
