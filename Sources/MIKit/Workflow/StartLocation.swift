import Foundation

/// Where a form was started, as `mi new` found it (seed 000's location of the respondent): a
/// point and where it came from, or why there is none.
public enum StartLocation: Sendable, Equatable {
    /// A point, and its source in words (`gpsd at 127.0.0.1:2947`, `typed with --location`).
    case point(Geopoint, source: String)
    /// No point was available; why (gpsd's message).
    case unavailable(reason: String)
}

extension Form {
    /// Sets `startLocation` (or leaves it nil) and records in the audit trail what was found.
    mutating func recordStart(_ location: StartLocation, by user: String, at date: Date) {
        switch location {
        case .point(let point, let source):
            startLocation = point
            record(AuditEvent(at: date, by: user, action: .located, note: "\(point) from \(source)"))
        case .unavailable(let reason):
            startLocation = nil
            record(AuditEvent(at: date, by: user, action: .located, note: "none recorded — \(reason)"))
        }
    }
}
