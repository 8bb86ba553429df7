import Foundation
import XCTest
@testable import MITransport

final class RetryPolicyTests: XCTestCase {
    func testDefaults() {
        XCTAssertEqual(RetryPolicy.default.attempts, 4)
        XCTAssertEqual(RetryPolicy.default.initialDelay, 0.5)
        XCTAssertEqual(RetryPolicy.default.maxDelay, 8)
        XCTAssertEqual(RetryPolicy.default.maxRetryAfter, 60)
        XCTAssertEqual(RetryPolicy.none.attempts, 1)
        XCTAssertEqual(RetryPolicy(attempts: 0).attempts, 1)
    }

    func testBackoffDoublesUpToMaxDelayWithJitter() {
        let policy = RetryPolicy.default
        // With jitter at its lowest, half the backoff; at its highest, all of it.
        XCTAssertEqual(policy.delay(afterAttempt: 1, random: { 0 }), 0.25)
        XCTAssertEqual(policy.delay(afterAttempt: 1, random: { 1 }), 0.5)
        XCTAssertEqual(policy.delay(afterAttempt: 2, random: { 1 }), 1)
        XCTAssertEqual(policy.delay(afterAttempt: 3, random: { 1 }), 2)
        XCTAssertEqual(policy.delay(afterAttempt: 10, random: { 1 }), 8)
        XCTAssertEqual(policy.delay(afterAttempt: 10, random: { 0 }), 4)
        let random = (0..<50).map { _ in policy.delay(afterAttempt: 2) }
        XCTAssertTrue(random.allSatisfy { (0.5...1).contains($0) })
        XCTAssertGreaterThan(Set(random).count, 1, "jitter varies the wait")
    }

    func testRetryAfterIsHonouredAndCapped() {
        let policy = RetryPolicy.default
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 3), 3)
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 0), 0)
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 3600), 60)
        XCTAssertEqual(RetryPolicy(maxRetryAfter: 5).delay(afterAttempt: 1, retryAfter: 30), 5)
    }

    func testRetryAfterParsing() {
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("1"), 1)
        XCTAssertEqual(RetryPolicy.retryAfterSeconds(" 120 "), 120)
        XCTAssertNil(RetryPolicy.retryAfterSeconds("-1"))
        XCTAssertNil(RetryPolicy.retryAfterSeconds("soon"))
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("Wed, 21 Oct 2015 07:28:30 GMT", now: now), 30)
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("Wed, 21 Oct 2015 07:27:00 GMT", now: now), 0)
    }

    func testRetryableStatuses() {
        XCTAssertEqual(RetryPolicy.retryableStatuses, [408, 429, 500, 502, 503, 504])
    }
}
