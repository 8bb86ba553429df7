import Foundation
import MIKit

/// The geometry of the office's server-rendered SVG charts (the dashboard, the statistics
/// page): figures in, positions in SVG user units out, drawn by the `chart-*` views with
/// presentation attributes only (the CSP allows no inline style) and no script. Every mark
/// carries a `<title>` with its figure, and bars keep their count in text beside them, so a
/// chart is read without hovering and prints as it shows.
enum SVGChart {
    /// One horizontal bar: `label` above it (shortened to fit), `text` on its right,
    /// `title` the tooltip (the whole label and figure), `href` where the row links to.
    struct Bar: Sendable {
        var label: String
        var title: String
        var value: Int
        var text: String
        var href: String = ""
    }

    /// One vertical bar: `tick` (if any) under it, `text` (if any) above it.
    struct Column: Sendable {
        var value: Int
        var title: String
        var tick: String = ""
        var text: String = ""
    }

    /// One point of a line; `title` nil for a point drawn without a marker (a day without forms).
    struct Point: Sendable {
        var value: Int
        var title: String?
    }

    /// A bar row: the label's line, then the bar with its count. The chart is narrow (`barRoom`
    /// + `textRoom` units) so that on a phone it is drawn at about its own size — text of 11 to 12
    /// units stays 10 px or more — and every bar is on the screen.
    static let rowHeight = 38.0, labelHeight = 15.0, barHeight = 16.0, barRoom = 250.0, textRoom = 90.0
    /// Characters of a label that fit on its line at the label's size.
    static let labelCharacters = 44

    /// Horizontal bars scaled to the largest value (a zero is a bar of no width: still counted),
    /// one row each, in the given order, each under its label. `kind` is the class of each row's `<g>`.
    static func bars(_ bars: [Bar], kind: String, svgClass: String, label: String) -> [String: Any] {
        let highest = max(bars.map(\.value).max() ?? 0, 1)
        let rows: [[String: Any]] = bars.enumerated().map { index, bar in
            let y = Double(index) * rowHeight
            let width = bar.value == 0 ? 0 : max((Double(bar.value) / Double(highest) * barRoom).rounded(), 1)
            return [
                "kind": kind, "title": bar.title, "label": shortened(bar.label), "text": bar.text, "href": bar.href,
                "labelY": y + 12, "y": y + labelHeight + 2, "textY": y + labelHeight + 2 + barHeight - 3, "barX": 0.0,
                "width": width, "textX": width + 6, "barHeight": barHeight,
            ]
        }
        return ["rows": rows, "svgClass": svgClass, "ariaLabel": label, "empty": bars.isEmpty,
                "height": max(Double(bars.count) * rowHeight, rowHeight), "width": barRoom + textRoom]
    }

    /// Vertical bars `pitch` apart and `width` wide, scaled so the largest fills `height`; room
    /// below for the ticks and, when any column has a `text`, above for the counts. The first
    /// and last ticks are anchored inside the chart.
    /// `minimumWidth` keeps a chart of few columns from being scaled up to giant bars.
    static func columns(_ columns: [Column], kind: String, svgClass: String, label: String,
                        height: Double = 120, pitch: Double = 22, width: Double = 18, minimumWidth: Double = 0) -> [String: Any] {
        let highest = max(columns.map(\.value).max() ?? 0, 1)
        // Room for the counts above and the ticks below at the larger text of a narrow window.
        let top = columns.contains { !$0.text.isEmpty } ? 24.0 : 0
        let last = columns.count - 1
        let bars: [[String: Any]] = columns.enumerated().map { index, column in
            let barHeight = (Double(column.value) / Double(highest) * height).rounded()
            let x = Double(index) * pitch
            return [
                "kind": kind, "title": column.title, "x": x, "y": top + height - barHeight, "width": width,
                "height": barHeight, "tick": column.tick, "text": column.text,
                "textX": x + width / 2, "textY": top + height - barHeight - 3,
                "anchor": index == 0 ? "start" : (index == last ? "end" : "middle"),
                "labelX": index == 0 ? x : (index == last ? x + width : x + width / 2),
            ]
        }
        return ["bars": bars, "svgClass": svgClass, "ariaLabel": label, "highest": highest,
                "width": max(Double(columns.count) * pitch - (pitch - width), width, minimumWidth), "height": top + height + 28,
                "labelY": top + height + 24]
    }

    /// A line through `points`, evenly spaced over `width`, scaled so the largest value reaches
    /// the top; a marker with its tooltip on every point that has a title.
    static func line(_ points: [Point], firstTick: String, lastTick: String, svgClass: String, label: String,
                     width: Double = 560, height: Double = 120) -> [String: Any] {
        let highest = max(points.map(\.value).max() ?? 0, 1)
        // Room above for the highest value's tick at the larger text of a narrow window.
        let top = 18.0, left = 30.0
        let step = points.count > 1 ? width / Double(points.count - 1) : 0
        func position(_ index: Int, _ value: Int) -> (x: Double, y: Double) {
            let x = left + (points.count > 1 ? Double(index) * step : width / 2)
            return (x, top + height - (Double(value) / Double(highest) * height))
        }
        let placed = points.enumerated().map { position($0.offset, $0.element.value) }
        let markers: [[String: Any]] = points.enumerated().compactMap { index, point in
            guard let title = point.title else { return nil }
            return ["x": placed[index].x, "y": placed[index].y, "title": title]
        }
        return [
            "points": placed.map { "\(rounded($0.x)),\(rounded($0.y))" }.joined(separator: " "),
            "markers": markers, "svgClass": svgClass, "ariaLabel": label, "highest": highest,
            "width": left + width + 4, "height": top + height + 28, "left": left, "right": left + width,
            "top": top, "bottom": top + height, "labelY": top + height + 24, "highestY": top + 4,
            "firstTick": firstTick, "lastTick": lastTick,
        ]
    }

    /// Points on a square plot (`LocationPlot`, MIKit's projection) `side` units wide, each a dot
    /// with its coordinates as the tooltip, in a frame with the bounding box's edges written
    /// at its corners (north and west top left, south and east bottom right).
    static func points(_ statistics: LocationStatistics, svgClass: String, label: String, side: Double = 360) -> [String: Any] {
        let plot = LocationPlot(statistics)
        let top = 16.0, bottom = 20.0
        let dots: [[String: Any]] = zip(plot.positions, statistics.points).map { position, point -> [String: Any] in
            let title = formatNumber(point.latitude) + ", " + formatNumber(point.longitude)
            return ["x": rounded(position.x * side), "y": rounded(top + position.y * side), "title": title]
        }
        let box = statistics.boundingBox
        return [
            "dots": dots, "svgClass": svgClass, "ariaLabel": label,
            "width": side, "height": top + side + bottom, "side": side, "top": top, "bottomY": top + side + 14,
            "northWest": box.map { "N \(formatNumber($0.north)) · W \(formatNumber($0.west))" } ?? "",
            "southEast": box.map { "S \(formatNumber($0.south)) · E \(formatNumber($0.east))" } ?? "",
        ]
    }

    /// `label` cut to `labelCharacters` with an ellipsis; the tooltip keeps it whole.
    static func shortened(_ label: String) -> String {
        label.count > labelCharacters ? String(label.prefix(labelCharacters - 1)) + "…" : label
    }

    static func rounded(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
