import Foundation
import MIKit
import XCTest

/// The rule a refused value names, or a failure when it was accepted.
func refusal<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> String {
    do {
        let value = try body()
        XCTFail("accepted: \(value)", file: file, line: line)
        return ""
    } catch let error as ValueError {
        return error.rule
    } catch {
        XCTFail("not a ValueError: \(error)", file: file, line: line)
        return ""
    }
}

func zone(_ identifier: String) -> TimeZone {
    guard let zone = TimeZone(identifier: identifier) else { preconditionFailure("no zone \(identifier) on this machine") }
    return zone
}

/// A context at `iso` (an instant with its offset) in the zone `identifier`.
func context(_ iso: String, _ identifier: String) -> TemporalContext {
    guard let instant = try? Date(iso, strategy: .iso8601) else { preconditionFailure("bad instant \(iso)") }
    return TemporalContext(now: instant, timeZone: zone(identifier))
}
