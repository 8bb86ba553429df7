import Foundation

/// When incomplete forms expire, and which are close to it. One rule for the listing, the
/// foreman's queue and the warning at login.
public struct Expiry: Sendable, Equatable {
    /// Incomplete forms are deleted this many days after they were started (or sent back).
    public var days: Int
    /// A form is "expiring soon" when it expires within this many days (at most `days`).
    public var warningDays: Int

    /// The seed's rule: `ExpiryDays` from Config.plist; warn two days ahead (or fewer, when
    /// forms live less than two days).
    public init(days: Int, warningDays: Int = 2) {
        self.days = days
        self.warningDays = min(warningDays, days)
    }

    /// When an incomplete form expires: `days` after it was created (or sent back).
    public func date(of summary: FormSummary) -> Date {
        Store.expiryDate(of: summary, expiryDays: days)
    }

    /// Whole days left before the form expires, rounded up (0 or less: it expires today).
    public func daysLeft(of summary: FormSummary, now: Date) -> Int {
        Int((date(of: summary).timeIntervalSince(now) / 86_400).rounded(.up))
    }

    /// Whether an incomplete form expires within `warningDays` of `now`.
    public func isSoon(_ summary: FormSummary, now: Date) -> Bool {
        summary.status == .incomplete && date(of: summary) < now.addingTimeInterval(Double(warningDays) * 86_400)
    }
}

extension Configuration {
    /// The expiry rule Config.plist's `ExpiryDays` sets.
    public var expiry: Expiry { Expiry(days: expiryDays) }
}
