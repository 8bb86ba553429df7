import Foundation

/// Horizontal bar charts in text: one line per bar, `label  bar  figures`, fitted to a width.
///
/// On a terminal the bars are drawn with the block characters `█▏▎▍▌▋▊▉` (eighths of a cell, so
/// small differences show); piped or redirected they are runs of `#` (whole cells only), so a
/// file, a mail or `grep` gets plain ASCII bars that any font and encoding shows. No escape
/// sequence is ever written: charts have no colour.
struct BarChart {
    struct Bar {
        var label: String
        /// The bar's length as a share of the longest possible bar, 0–1.
        var fraction: Double
        /// The figures after the bar (count, percent), already formatted.
        var figures: [String]
    }

    enum Style {
        /// Eighth-cell block characters, on a terminal.
        case blocks
        /// `#` per whole cell, when piped.
        case ascii

        /// Blocks on a terminal, ASCII when stdout is piped (even with `COLUMNS` set).
        static var current: Style { Terminal.stdoutIsTerminal ? .blocks : .ascii }
    }

    var bars: [Bar] = []
    var indent = 3
    /// The widest a label may be, as a share of the line; longer labels are cut with "…".
    var labelShare = 0.4

    static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    /// Bars narrower than this make no chart; the figures still show.
    static let minimumBarWidth = 10

    mutating func add(_ label: String, fraction: Double, _ figures: String...) {
        bars.append(Bar(label: label, fraction: fraction, figures: figures))
    }

    /// The chart's lines, each at most `width` characters.
    func lines(width: Int, style: Style) -> [String] {
        guard !bars.isEmpty else { return [] }
        let figureColumns = bars.map(\.figures.count).max() ?? 0
        let figureWidths = (0..<figureColumns).map { column in
            bars.map { column < $0.figures.count ? $0.figures[column].count : 0 }.max() ?? 0
        }
        let figuresWidth = figureWidths.reduce(0) { $0 + $1 + 2 }
        let labelLimit = max(8, Int(Double(width - indent) * labelShare))
        let labelWidth = min(labelLimit, bars.map(\.label.count).max() ?? 0)
        let barWidth = max(Self.minimumBarWidth, width - indent - labelWidth - 2 - figuresWidth)
        return bars.map { bar in
            let label = Self.cut(bar.label, to: labelWidth).padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            let drawn = Self.bar(bar.fraction, width: barWidth, style: style)
            let padded = drawn + String(repeating: " ", count: max(0, barWidth - drawn.count))
            let figures = zip(bar.figures, figureWidths).map { figure, width in
                String(repeating: " ", count: max(0, width - figure.count)) + figure
            }.joined(separator: "  ")
            return (String(repeating: " ", count: indent) + label + "  " + padded + "  " + figures).trailingSpacesRemoved
        }
    }

    /// A bar of `fraction` × `width` cells: whole blocks and one partial block (in eighths), or
    /// whole `#`s. Any non-zero value shows at least a sliver, so it is not mistaken for none.
    static func bar(_ fraction: Double, width: Int, style: Style) -> String {
        let share = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        switch style {
        case .blocks:
            var eighthsCount = Int((share * Double(width * 8)).rounded())
            if share > 0, eighthsCount == 0 { eighthsCount = 1 }
            return String(repeating: "█", count: eighthsCount / 8) + eighths[eighthsCount % 8]
        case .ascii:
            var cells = Int((share * Double(width)).rounded())
            if share > 0, cells == 0 { cells = 1 }
            return String(repeating: "#", count: cells)
        }
    }

    /// `text` cut to `width` characters, ending in "…" when cut.
    static func cut(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return String(text.prefix(max(0, width - 1))) + "…"
    }
}
