import Foundation

/// Where a location question's points fall on a square plot: an equirectangular projection
/// around the middle of their bounding box (longitudes shortened by the cosine of the middle
/// latitude, so a kilometre is as long east–west as north–south), scaled so the larger side of
/// the box fills the square with a margin. The office draws it as SVG, `mi stats` as
/// characters; both from these positions.
public struct LocationPlot: Sendable, Equatable {
    /// One position per plotted point, in the statistics' order: `x` from 0 (west) to 1 (east),
    /// `y` from 0 (north) to 1 (south).
    public let positions: [Position]
    /// The east–west and north–south extent of the points, in metres (0 for one point).
    public let widthMetres: Double
    public let heightMetres: Double

    public struct Position: Sendable, Equatable {
        public var x: Double
        public var y: Double
    }

    /// The share of the square left empty around the points, on each side.
    public static let margin = 0.06

    public init(_ statistics: LocationStatistics) {
        guard let box = statistics.boundingBox else {
            positions = []
            widthMetres = 0
            heightMetres = 0
            return
        }
        let middleLatitude = (box.south + box.north) / 2
        let middleLongitude = (box.west + box.east) / 2
        let shrink = max(cos(middleLatitude * .pi / 180), 0.01)
        let spanX = (box.east - box.west) * shrink
        let spanY = box.north - box.south
        let side = max(spanX, spanY)
        let scale = side > 0 ? (1 - 2 * Self.margin) / side : 0
        positions = statistics.points.map { point in
            Position(x: 0.5 + (point.longitude - middleLongitude) * shrink * scale,
                     y: 0.5 - (point.latitude - middleLatitude) * scale)
        }
        let metresPerDegree = Geopoint.earthRadius * .pi / 180
        widthMetres = spanX * metresPerDegree
        heightMetres = spanY * metresPerDegree
    }

    /// The plot as `rows` lines of `2 × rows` characters (a character is about twice as tall as
    /// wide): `•` where one point falls, `●` where several do, `·` elsewhere.
    public func characters(rows: Int) -> [String] {
        let columns = rows * 2
        var counts = Array(repeating: Array(repeating: 0, count: columns), count: rows)
        for position in positions {
            let column = min(max(Int(position.x * Double(columns)), 0), columns - 1)
            let row = min(max(Int(position.y * Double(rows)), 0), rows - 1)
            counts[row][column] += 1
        }
        return counts.map { row in String(row.map { $0 == 0 ? "·" : ($0 == 1 ? "•" : "●") }) }
    }
}
