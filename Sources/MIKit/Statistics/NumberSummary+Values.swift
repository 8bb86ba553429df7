import Foundation

extension NumberSummary {
    /// The summary of `values` (nil when there are none). `integer` says the numbers are whole
    /// (an integer question), which decides the histogram's bins.
    ///
    /// The mean and the sample standard deviation are computed in two passes (the deviations
    /// from the mean), which keeps them accurate for values far from zero. Quartiles follow
    /// Python's `statistics.quantiles(values, n: 4, method: "inclusive")`, term for term.
    ///
    /// Histogram bins (every bin the same width; a value `x` is in the bin with
    /// `lower ≤ x < upper`, the last bin also holds its `upper`):
    /// - whole numbers (integer questions): each whole number `k` stands for `[k, k + 1)`. When
    ///   the values span at most `maxBins` whole numbers, one bin per number; else the narrowest
    ///   "nice" whole width (1, 2, 5 × 10ⁿ, and 25 × 10ⁿ) that needs at most `maxBins` bins, the
    ///   bins starting at a multiple of the width.
    /// - real numbers: the Freedman–Diaconis width (2 × IQR / ∛n), or Sturges' rule (range /
    ///   (⌈log₂ n⌉ + 1)) when the quartiles coincide, rounded up to a nice width (1, 2, 2.5, 5 ×
    ///   10ⁿ) and widened further until at most `maxBins` bins cover the values; the bins start
    ///   at a multiple of the width. When every value is the same, one bin `[v, v]`.
    public init?(values: [Double], integer: Bool, maxBins: Int = NumberSummary.maxBins) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let count = sorted.count
        let mean = sorted.reduce(0, +) / Double(count)
        var deviation: Double?
        if count > 1 {
            let squares = sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
            deviation = (squares / Double(count - 1)).squareRoot()
        }
        let quartiles = Self.inclusiveQuartiles(sorted)
        self.init(count: count, mean: mean, standardDeviation: deviation, minimum: sorted[0],
                  lowerQuartile: quartiles.0, median: quartiles.1, upperQuartile: quartiles.2, maximum: sorted[count - 1],
                  histogram: Self.histogram(sorted: sorted, integer: integer,
                                            interquartileRange: quartiles.2 - quartiles.0, maxBins: maxBins),
                  integer: integer)
    }

    /// At most this many histogram bins, so a chart stays readable.
    public static let maxBins = 20

    /// Python's inclusive quantiles for n = 4: with m = n − 1, the i-th cut is
    /// `(x[j] × (4 − δ) + x[j+1] × δ) / 4` where `j = i·m div 4` and `δ = i·m mod 4`.
    static func inclusiveQuartiles(_ sorted: [Double]) -> (Double, Double, Double) {
        guard sorted.count > 1 else { return (sorted[0], sorted[0], sorted[0]) }
        let m = sorted.count - 1
        func cut(_ i: Int) -> Double {
            let j = i * m / 4
            let delta = Double(i * m - j * 4)
            return (sorted[j] * (4 - delta) + sorted[j + 1] * delta) / 4
        }
        return (cut(1), cut(2), cut(3))
    }

    static func histogram(sorted: [Double], integer: Bool, interquartileRange: Double, maxBins: Int) -> [HistogramBin] {
        guard let minimum = sorted.first, let maximum = sorted.last else { return [] }
        let bins = max(1, maxBins)
        let width: BinWidth
        let firstBin: Int
        let binCount: Int
        if integer {
            // Whole number k stands for [k, k + 1).
            let (low, high) = (minimum.rounded(.down), maximum.rounded(.down))
            var chosen = BinWidth(mantissa: 1, exponent: 0)
            if high + 1 - low > Double(bins) {
                for candidate in BinWidth.nice(atLeast: (high + 1 - low) / Double(bins), whole: true) {
                    chosen = candidate
                    if candidate.index(of: high) - candidate.index(of: low) + 1 <= bins { break }
                }
            }
            (width, firstBin) = (chosen, chosen.index(of: low))
            binCount = chosen.index(of: high) - firstBin + 1
        } else {
            let range = maximum - minimum
            guard range > 0 else { return [HistogramBin(lower: minimum, upper: maximum, count: sorted.count)] }
            let n = Double(sorted.count)
            var raw = interquartileRange > 0 ? 2 * interquartileRange / Foundation.cbrt(n) : 0
            if raw <= 0 { raw = range / (Foundation.log2(n).rounded(.up) + 1) }
            var chosen = BinWidth(mantissa: 1, exponent: 0)
            var chosenFirst = 0
            var chosenCount = 1
            for candidate in BinWidth.nice(atLeast: max(raw, range / Double(bins)), whole: false) {
                let first = candidate.index(of: minimum)
                // A maximum on a boundary belongs to the last bin, which holds its upper edge.
                var last = candidate.index(of: maximum)
                if last > first, candidate.edge(last) == maximum { last -= 1 }
                (chosen, chosenFirst, chosenCount) = (candidate, first, last - first + 1)
                if chosenCount <= bins { break }
            }
            (width, firstBin, binCount) = (chosen, chosenFirst, chosenCount)
        }
        var counts = [Int](repeating: 0, count: binCount)
        for value in sorted {
            counts[min(max(width.index(of: value) - firstBin, 0), binCount - 1)] += 1
        }
        return counts.enumerated().map { offset, count in
            HistogramBin(lower: width.edge(firstBin + offset), upper: width.edge(firstBin + offset + 1), count: count)
        }
    }
}

/// A histogram bin width `mantissa × 10^exponent`, whose bin edges are computed so that they
/// are the nearest doubles to the decimal numbers they stand for (0.3, not 0.30000000000000004).
struct BinWidth: Equatable {
    var mantissa: Double
    var exponent: Int

    /// The edge of bin `index`: `index × width`.
    func edge(_ index: Int) -> Double {
        let scaled = Double(index) * mantissa
        return exponent >= 0 ? scaled * Foundation.pow(10, Double(exponent)) : scaled / Foundation.pow(10, Double(-exponent))
    }

    /// The bin holding `value`: the `index` with `edge(index) ≤ value < edge(index + 1)`.
    func index(of value: Double) -> Int {
        let scaled = exponent >= 0 ? value / Foundation.pow(10, Double(exponent)) : value * Foundation.pow(10, Double(-exponent))
        var index = Int((scaled / mantissa).rounded(.down))
        // Division rounding can land one bin off right at an edge: settle it on the edges themselves.
        if edge(index) > value { index -= 1 } else if edge(index + 1) <= value { index += 1 }
        return index
    }

    var value: Double { edge(1) }

    /// Widths 1, 2, 2.5 and 5 × 10ⁿ from the first at or above `minimum`, increasing (whole
    /// numbers only when `whole`): enough to widen a histogram until it fits.
    static func nice(atLeast minimum: Double, whole: Bool) -> [BinWidth] {
        var exponent = Int(Foundation.log10(max(minimum, Double.leastNormalMagnitude)).rounded(.down)) - 1
        var widths: [BinWidth] = []
        while widths.count < 16 {
            for mantissa in [1.0, 2, 2.5, 5] {
                let width = BinWidth(mantissa: mantissa, exponent: exponent)
                let isWhole = exponent >= 1 || (exponent == 0 && mantissa != 2.5)
                if width.value >= minimum, !whole || isWhole { widths.append(width) }
            }
            exponent += 1
        }
        return widths
    }
}
