import Foundation
import MIKit
import XCTest

/// `RangeRule`: the values a `range` question allows, checked in decimal.
final class RangeRuleTests: XCTestCase {
    func testARatingOneToFive() throws {
        let rating = try RangeRule(start: 1, end: 5, step: 1)
        XCTAssertEqual(rating.count, 5)
        XCTAssertEqual(rating.values(), [1, 2, 3, 4, 5])
        for value in [1.0, 2, 3, 4, 5] { XCTAssertEqual(try rating.checked(value), value) }
        XCTAssertEqual(refusal { try rating.checked(0) }, "0 is outside the range 1 to 5")
        XCTAssertEqual(refusal { try rating.checked(6) }, "6 is outside the range 1 to 5")
        XCTAssertEqual(refusal { try rating.checked(2.5) }, "2.5 is not on a step of 1 from 1 — the nearest allowed values are 2 and 3")
        XCTAssertEqual(try rating.value(fromLine: " 4 "), 4)
    }

    func testDecimalStepsHaveNoFloatingPointFalseRefusals() throws {
        let tenths = try RangeRule(start: 0, end: 1, step: 0.1)
        XCTAssertEqual(tenths.count, 11)
        // 0.1 * 3 is 0.30000000000000004 in binary; 0.3 is on the step all the same.
        for text in ["0.3", "0.7", "0.9", "1", "0", "0.6", "1.0"] {
            XCTAssertNoThrow(try tenths.value(fromLine: text), text)
        }
        XCTAssertEqual(tenths.values(), [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1])
        XCTAssertEqual(refusal { try tenths.value(fromLine: "0.35") },
                       "0.35 is not on a step of 0.1 from 0 — the nearest allowed values are 0.3 and 0.4")
        XCTAssertTrue(refusal { try tenths.checked(0.1 * 3) }.hasPrefix("0.30000000000000004 is not on a step"),
                      "no tolerance: a value just off the step is refused")
        let halves = try RangeRule(start: -2.5, end: 2.5, step: 0.5)
        XCTAssertEqual(halves.count, 11)
        XCTAssertNoThrow(try halves.checked(-0.5))
        XCTAssertNoThrow(try halves.checked(0))
        XCTAssertThrowsError(try halves.checked(0.25))
        let fine = try RangeRule(start: 0.001, end: 0.01, step: 0.001)
        XCTAssertEqual(fine.count, 10)
        XCTAssertNoThrow(try fine.checked(0.007))
        XCTAssertNoThrow(try fine.checked(0.003))
        let cents = try RangeRule(start: 0, end: 100, step: 0.01)
        XCTAssertEqual(cents.count, 10_001)
        XCTAssertNil(cents.values(), "too many to list")
        XCTAssertNoThrow(try cents.checked(99.99))
        XCTAssertNoThrow(try cents.checked(33.33))
        XCTAssertEqual(cents.value(at: 3333), 33.33)
    }

    func testAScaleRunningDownwards() throws {
        let down = try RangeRule(start: 10, end: 0, step: 2.5)
        XCTAssertEqual(down.values(), [10, 7.5, 5, 2.5, 0])
        XCTAssertNoThrow(try down.checked(7.5))
        XCTAssertEqual(refusal { try down.checked(8) }, "8 is not on a step of 2.5 from 10 — the nearest allowed values are 10 and 7.5")
        XCTAssertEqual(refusal { try down.checked(-2.5) }, "-2.5 is outside the range 10 to 0")
        XCTAssertEqual(try RangeRule(start: 5, end: 1, step: -1).values(), [5, 4, 3, 2, 1], "a step with the direction's sign")
    }

    func testRulesThatCannotBeAnsweredAreRefused() {
        XCTAssertEqual(refusal { try RangeRule(start: 1, end: 1, step: 1) }, "start and end are both 1: a range needs two ends")
        XCTAssertEqual(refusal { try RangeRule(start: 1, end: 5, step: 0) }, "step 0 is too small (at least 0.000000001)")
        XCTAssertEqual(refusal { try RangeRule(start: 1, end: 5, step: -1) }, "step -1 points away from end 5 (start is 1)")
        XCTAssertEqual(try RangeRule(start: 5, end: 1, step: 1).values(), [5, 4, 3, 2, 1], "ODK's positive step runs downwards too")
        XCTAssertEqual(refusal { try RangeRule(start: 0, end: 1, step: 0.3) }, "step 0.3 does not divide the range 0 to 1 evenly")
        XCTAssertEqual(refusal { try RangeRule(start: 1, end: 10, step: 2) }, "step 2 does not divide the range 1 to 10 evenly")
        XCTAssertTrue(refusal { try RangeRule(start: .nan, end: 1, step: 1) }.hasPrefix("start nan is not a number"))
        XCTAssertTrue(refusal { try RangeRule(start: 0, end: .infinity, step: 1) }.hasPrefix("end inf is not a number"))
        XCTAssertTrue(refusal { try RangeRule(start: 0, end: 1e16, step: 1) }.hasPrefix("end 1e+16 is not a number within"))
        XCTAssertEqual(refusal { try RangeRule(start: 0, end: 1, step: 1e-10) }, "step 1e-10 is too small (at least 0.000000001)")
    }

    func testHugeAndHostileValuesAreRefusedNotCrashing() throws {
        let rating = try RangeRule(start: 1, end: 5, step: 1)
        XCTAssertEqual(refusal { try rating.checked(.nan) }, "nan is not a number")
        XCTAssertEqual(refusal { try rating.checked(.infinity) }, "inf is not a number")
        XCTAssertEqual(refusal { try rating.checked(1e300) }, "1e+300 is outside the range 1 to 5")
        XCTAssertEqual(refusal { try rating.checked(-Double.greatestFiniteMagnitude) }.hasSuffix("is outside the range 1 to 5"), true)
        XCTAssertTrue(refusal { try rating.checked(1 + 1e-15) }.contains("is not on a step of 1"))
        let around = try RangeRule(start: -1, end: 1, step: 1)
        XCTAssertTrue(refusal { try around.checked(1e-200) }.hasPrefix("1e-200 is not on a step of 1 from -1"))
        XCTAssertTrue(refusal { try around.checked(-1e-300) }.contains("is not on a step"))
        for text in ["", "three", "3,5", "1e999", "nan", "inf", "-inf", String(repeating: "9", count: 500), "3 4", "0x3"] {
            let rule = refusal { try rating.value(fromLine: text) }
            XCTAssertFalse(rule.isEmpty, text)
            XCTAssertLessThan(rule.count, 300)
        }
        XCTAssertEqual(refusal { try rating.value(fromLine: "3,5") }, "\"3,5\" is not a number — use a dot: 3.5")
        XCTAssertEqual(refusal { try rating.value(fromLine: "0x3") }, "\"0x3\" is not a number — give one from 1 to 5 in steps of 1")
        let wide = try RangeRule(start: -1e15, end: 1e15, step: 1e-9)
        XCTAssertEqual(wide.count, Int.max, "more values than an Int counts")
        XCTAssertNoThrow(try wide.checked(123456.000000001))
        XCTAssertNil(wide.values())
    }
}
