import Foundation

/// How often, and how patiently, a request is repeated after a failure that may be temporary:
/// network errors (no connection, timeouts, broken transfers) and 408, 429, 500, 502, 503, 504.
/// The wait doubles from `initialDelay` up to `maxDelay`, with jitter; a `Retry-After` from the
/// server is honoured instead, up to `maxRetryAfter`.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included (at least 1).
    public var attempts: Int
    /// The wait after the first failure, in seconds.
    public var initialDelay: TimeInterval
    /// The longest backoff wait, in seconds.
    public var maxDelay: TimeInterval
    /// The longest wait a server's `Retry-After` can ask for, in seconds.
    public var maxRetryAfter: TimeInterval

    /// A policy; values below their minimum (1 attempt, 0 seconds) are raised to it.
    public init(attempts: Int = 4, initialDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8,
                maxRetryAfter: TimeInterval = 60) {
        self.attempts = max(1, attempts)
        self.initialDelay = max(0, initialDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxRetryAfter = max(0, maxRetryAfter)
    }

    /// 4 attempts, waits of about 0.5, 1 and 2 seconds.
    public static let `default` = RetryPolicy()
    /// One attempt only.
    public static let none = RetryPolicy(attempts: 1)

    /// The statuses worth repeating a request for.
    public static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The wait before the next try after `failedAttempts` tries (1…) failed. `retryAfter` is the
    /// server's `Retry-After` in seconds; `random` yields values in 0…1 (jitter).
    public func delay(afterAttempt failedAttempts: Int, retryAfter: TimeInterval? = nil,
                      random: () -> Double = { Double.random(in: 0...1) }) -> TimeInterval {
        if let retryAfter { return min(max(0, retryAfter), maxRetryAfter) }
        let exponent = Double(max(0, failedAttempts - 1))
        let backoff = min(maxDelay, initialDelay * pow(2, exponent))
        // "Equal jitter": at least half the backoff, so waits still grow; the rest random, so many
        // clients failing together do not come back together.
        return backoff / 2 + backoff / 2 * min(1, max(0, random()))
    }

    /// Seconds from a `Retry-After` value: delay-seconds, or an HTTP date (`now` for the difference).
    public static func retryAfterSeconds(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
