import Foundation
import MIKit
import XCTest

/// `NumberSummary(values:integer:)`: the figures against Python's `statistics` and the bin rules.
final class NumberSummaryTests: XCTestCase {
    func testNoValuesNoSummary() {
        XCTAssertNil(NumberSummary(values: [], integer: false))
    }

    func testOneValue() throws {
        let summary = try XCTUnwrap(NumberSummary(values: [4.5], integer: false))
        XCTAssertNil(summary.standardDeviation, "the sample standard deviation needs two values")
        XCTAssertEqual([summary.minimum, summary.lowerQuartile, summary.median, summary.upperQuartile, summary.maximum], [4.5, 4.5, 4.5, 4.5, 4.5])
        XCTAssertEqual(summary.histogram, [HistogramBin(lower: 4.5, upper: 4.5, count: 1)])
    }

    func testQuartilesAreInclusiveLikePython() throws {
        // statistics.quantiles(range(1, 11), method="inclusive") == [3.25, 5.5, 7.75]
        let ten = try XCTUnwrap(NumberSummary(values: (1...10).map(Double.init).reversed(), integer: true))
        XCTAssertEqual([ten.lowerQuartile, ten.median, ten.upperQuartile], [3.25, 5.5, 7.75])
        // statistics.quantiles([1, 2], method="inclusive") == [1.25, 1.5, 1.75]
        let two = try XCTUnwrap(NumberSummary(values: [2, 1], integer: true))
        XCTAssertEqual([two.lowerQuartile, two.median, two.upperQuartile], [1.25, 1.5, 1.75])
        // statistics.stdev([1, 2]) == 0.7071067811865476
        XCTAssertEqual(try XCTUnwrap(two.standardDeviation), 0.7071067811865476, accuracy: 1e-15)
    }

    func testStandardDeviationStaysAccurateFarFromZero() throws {
        // statistics.stdev([1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16]) == 5.477225575051661
        let summary = try XCTUnwrap(NumberSummary(values: [1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16], integer: true))
        XCTAssertEqual(try XCTUnwrap(summary.standardDeviation), 5.477225575051661, accuracy: 1e-9)
        XCTAssertEqual(summary.mean, 1e9 + 10)
    }

    func testSmallIntegerRangeHasOneBinPerWholeNumber() throws {
        let summary = try XCTUnwrap(NumberSummary(values: [0, 0, 19, 7], integer: true))
        XCTAssertEqual(summary.histogram.count, 20)
        XCTAssertEqual(summary.histogram.first, HistogramBin(lower: 0, upper: 1, count: 2))
        XCTAssertEqual(summary.histogram.last, HistogramBin(lower: 19, upper: 20, count: 1))
        XCTAssertEqual(summary.histogram[7].count, 1)
    }

    func testOneIntegerValueHasOneBin() throws {
        let summary = try XCTUnwrap(NumberSummary(values: [3, 3], integer: true))
        XCTAssertEqual(summary.histogram, [HistogramBin(lower: 3, upper: 4, count: 2)])
    }

    func testWideIntegerRangeHasWholeEqualBinsOfANiceWidth() throws {
        let values = (0...100).map(Double.init)
        let summary = try XCTUnwrap(NumberSummary(values: values, integer: true))
        let widths = Set(summary.histogram.map { $0.upper - $0.lower })
        XCTAssertEqual(widths, [10])  // 101 numbers: 5 would need 21 bins
        XCTAssertEqual(summary.histogram.count, 11)
        XCTAssertEqual(summary.histogram.last, HistogramBin(lower: 100, upper: 110, count: 1))
        XCTAssertEqual(summary.histogram.map(\.count).reduce(0, +), 101)
        XCTAssertLessThanOrEqual(summary.histogram.count, NumberSummary.maxBins)
    }

    func testIntegerBinsStartAtAMultipleOfTheWidthAndCoverTheValues() throws {
        let values: [Double] = [-37, 12, 250, 999]
        let histogram = try XCTUnwrap(NumberSummary(values: values, integer: true)).histogram
        let width = histogram[0].upper - histogram[0].lower
        XCTAssertEqual(width, 100)
        XCTAssertEqual(histogram.first?.lower, -100)
        XCTAssertEqual(histogram.last?.upper, 1000)
        XCTAssertEqual(histogram.map(\.count).reduce(0, +), 4)
        XCTAssertLessThanOrEqual(histogram.count, NumberSummary.maxBins)
        for (left, right) in zip(histogram, histogram.dropFirst()) { XCTAssertEqual(left.upper, right.lower) }
    }

    func testRealBinsAreNiceAndAdjacentAndHoldTheMaximum() throws {
        let values = (0..<200).map { Double($0) * 0.05 + 0.1 }  // 0.1 … 10.05
        let histogram = try XCTUnwrap(NumberSummary(values: values, integer: false)).histogram
        XCTAssertEqual(histogram.map(\.count).reduce(0, +), 200)
        XCTAssertLessThanOrEqual(histogram.count, NumberSummary.maxBins)
        XCTAssertLessThanOrEqual(histogram[0].lower, 0.1)
        XCTAssertGreaterThanOrEqual(histogram[histogram.count - 1].upper, 10.05)
        // Freedman–Diaconis: 2 × 4.975 / ∛200 ≈ 1.70, rounded up to the nice 2.
        XCTAssertEqual(histogram[0].upper - histogram[0].lower, 2)
        for (left, right) in zip(histogram, histogram.dropFirst()) { XCTAssertEqual(left.upper, right.lower) }
    }

    func testRealBinEdgesAreTheDecimalsTheyStandFor() throws {
        let histogram = try XCTUnwrap(NumberSummary(values: [0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.7], integer: false)).histogram
        for bin in histogram {
            XCTAssertEqual(String(bin.lower).count <= 4, true, "\(bin.lower)")
        }
        XCTAssertEqual(histogram.map(\.count).reduce(0, +), 9)
    }

    func testAMaximumOnABinEdgeIsInTheLastBin() throws {
        let histogram = try XCTUnwrap(NumberSummary(values: [0, 0.5, 1, 1.5, 2], integer: false)).histogram
        XCTAssertEqual(histogram.last?.upper, 2)
        XCTAssertEqual(histogram.last.map { $0.count } ?? 0 >= 1, true)
        XCTAssertEqual(histogram.map(\.count).reduce(0, +), 5)
    }

    func testSturgesWhenTheQuartilesCoincide() throws {
        // IQR 0: Sturges gives ⌈log₂ 9⌉ + 1 = 5 bins over 0…10, width 2.
        let histogram = try XCTUnwrap(NumberSummary(values: [0, 5, 5, 5, 5, 5, 5, 5, 10], integer: false)).histogram
        XCTAssertEqual(histogram.first?.upper, 2)
        XCTAssertEqual(histogram.count, 5)
        XCTAssertEqual(histogram.map(\.count), [1, 0, 7, 0, 1])
    }
}
