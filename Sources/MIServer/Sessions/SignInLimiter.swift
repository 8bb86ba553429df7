import Foundation
import MIKit
import NIOConcurrencyHelpers

/// Failed sign-ins, counted per user name — as the directory compares names
/// (`UserNameMatching`), so that every spelling of one account shares one count — and per
/// client address over a sliding window: after
/// `perUser` failures for one name, or `perAddress` from one address, further attempts are
/// refused without asking the directory until the oldest failure leaves the window. A success
/// clears the user's count (not the address's: one right password must not unlock guessing at
/// every other name). Used by the office's `/login` and the API's session endpoint alike.
final class SignInLimiter: Sendable {
    struct Limits: Sendable {
        var perUser = 5
        var perAddress = 20
        var window: TimeInterval = 15 * 60
    }

    private struct State {
        var users: [String: [Date]] = [:]
        var addresses: [String: [Date]] = [:]
    }

    let limits: Limits
    private let state = NIOLockedValueBox(State())

    init(limits: Limits = Limits()) { self.limits = limits }

    /// Seconds until `user` from `address` may try again, or nil when they may now.
    func retryAfter(user: String, address: String, now: Date) -> Int? {
        state.withLockedValue { state in
            let user = Self.key(user)
            let waits = [
                Self.wait(&state.users[user], limit: limits.perUser, window: limits.window, now: now),
                Self.wait(&state.addresses[address], limit: limits.perAddress, window: limits.window, now: now),
            ].compactMap { $0 }
            return waits.max()
        }
    }

    func recordFailure(user: String, address: String, now: Date) {
        state.withLockedValue { state in
            state.users[Self.key(user), default: []].append(now)
            state.addresses[address, default: []].append(now)
            // A flood of made-up names must not grow the table without bound.
            if state.users.count > 10_000 { state.users = state.users.filter { $0.value.contains { now.timeIntervalSince($0) < limits.window } } }
        }
    }

    func recordSuccess(user: String) {
        state.withLockedValue { state in state.users[Self.key(user)] = nil }
    }

    private static func key(_ user: String) -> String {
        UserNameMatching.key(user)
    }

    /// Drops failures older than the window; the seconds until the oldest of `limit` leaves it.
    private static func wait(_ failures: inout [Date]?, limit: Int, window: TimeInterval, now: Date) -> Int? {
        guard var list = failures else { return nil }
        list.removeAll { now.timeIntervalSince($0) >= window }
        failures = list.isEmpty ? nil : list
        guard list.count >= limit, let oldest = list.dropLast(limit - 1).last else { return nil }
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
    }
}
