import Foundation

/// A point on the WGS 84 globe (`geopoint` questions, and where a form was started): latitude and
/// longitude in decimal degrees, and, when known, the altitude and the horizontal accuracy in
/// metres. Stored as a JSON object `{"latitude":…,"longitude":…,"altitude":…,"accuracy":…}`
/// (the last two only when known).
public struct Geopoint: Hashable, Sendable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double
    /// Metres above the WGS 84 ellipsoid (what gpsd calls `altHAE` and ODK stores).
    public let altitude: Double?
    /// The horizontal error in metres (the radius the fix is believed to lie within).
    public let accuracy: Double?

    public static let accepted = "latitude and longitude in decimal degrees with a dot, then optionally the altitude and the accuracy in metres (e.g. 19.4326 -99.1332 2240 5)"

    /// Mean radius of the Earth (IUGG), for distances.
    public static let earthRadius = 6_371_008.8

    /// A point that is on the globe: latitude −90…90, longitude −180…180, finite altitude, and an
    /// accuracy that is finite and not negative.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double? = nil) throws(ValueError) {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw ValueError("the latitude \(Self.number(latitude)) is outside −90 to 90 — \(Self.accepted)")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw ValueError("the longitude \(Self.number(longitude)) is outside −180 to 180 — \(Self.accepted)")
        }
        if let altitude, !(altitude.isFinite && abs(altitude) <= 1_000_000) {
            throw ValueError("the altitude \(Self.number(altitude)) m is not a height on or near the Earth (−1,000,000 to 1,000,000 m)")
        }
        if let accuracy {
            guard accuracy.isFinite else { throw ValueError("the accuracy \(Self.number(accuracy)) m is not a number of metres") }
            guard accuracy >= 0 else { throw ValueError("the accuracy \(Self.number(accuracy)) m is negative — it is a distance in metres") }
        }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
    }

    /// A typed line: `19.4326 -99.1332`, `19.4326 -99.1332 2240`, `19.4326 -99.1332 2240 5`; a
    /// comma after a number (`19.4326, -99.1332`, as maps copy a point) is read as a separator, and
    /// `?` stands for an unknown altitude before an accuracy (`19.4326 -99.1332 ? 5`).
    /// Numbers are decimal degrees written with a dot (no exponent, no degrees-minutes-seconds).
    public static func parse(_ line: String) throws(ValueError) -> Geopoint {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ValueError("no location given — write \(accepted)") }
        guard trimmed.utf8.count <= 200 else { throw ValueError("\(ValueError.quoted(trimmed)) is not a location — write \(accepted)") }
        var words: [String] = []
        for word in trimmed.split(whereSeparator: \.isWhitespace) {
            let word = word.hasSuffix(",") ? word.dropLast() : word
            if !word.isEmpty { words.append(String(word)) }
        }
        if words.contains(where: { $0.contains(",") }) {
            let dotted = words.map { $0.replacingOccurrences(of: ",", with: ".") }
            if dotted.allSatisfy({ DigitText.decimal($0) != nil }) {
                throw ValueError("\(ValueError.quoted(trimmed)) uses commas for decimals — write \(dotted.joined(separator: " "))")
            }
        }
        if trimmed.contains("°") || trimmed.contains("'") || trimmed.contains("\"") {
            throw ValueError("\(ValueError.quoted(trimmed)) is in degrees and minutes — write decimal degrees: \(accepted)")
        }
        guard (2...4).contains(words.count) else {
            throw ValueError("a location is 2 to 4 numbers, got \(words.count) — write \(accepted)")
        }
        var numbers: [Double?] = []
        for (index, word) in words.enumerated() {
            if index == 2 && word == "?" && words.count == 4 {
                numbers.append(nil)
                continue
            }
            guard let number = DigitText.decimal(word) else {
                let what = ["latitude", "longitude", "altitude", "accuracy"][index]
                throw ValueError("the \(what) \(ValueError.quoted(word)) is not a decimal number — write \(accepted)")
            }
            numbers.append(number)
        }
        guard let latitude = numbers[0], let longitude = numbers[1] else { throw ValueError("a location needs latitude and longitude") }
        return try Geopoint(latitude: latitude, longitude: longitude,
                            altitude: numbers.count > 2 ? numbers[2] : nil,
                            accuracy: numbers.count > 3 ? numbers[3] : nil)
    }

    /// The stored form: `{"latitude":19.4326,"longitude":-99.1332,"altitude":2240,"accuracy":5}`.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["latitude": .number(latitude), "longitude": .number(longitude)]
        if let altitude { object["altitude"] = .number(altitude) }
        if let accuracy { object["accuracy"] = .number(accuracy) }
        return .object(object)
    }

    /// A stored point, or one an answers file gives: the object above, or the typed line as a string.
    public init(json: JSONValue) throws(ValueError) {
        if let line = json.stringValue {
            self = try Self.parse(line)
            return
        }
        guard let object = json.objectValue else {
            throw ValueError("a location is an object with latitude and longitude (or a typed line), found \(json.kindDescription)")
        }
        if let unknown = object.keys.sorted().first(where: { !["latitude", "longitude", "altitude", "accuracy"].contains($0) }) {
            throw ValueError("a location has no key \(ValueError.quoted(unknown)) (keys: latitude, longitude, altitude, accuracy)")
        }
        func number(_ key: String, required: Bool) throws(ValueError) -> Double? {
            switch object[key] {
            case .number(let value)?: return value
            case nil, .null?:
                if required { throw ValueError("a location needs \(key)") }
                return nil
            case let other?: throw ValueError("a location's \(key) must be a number, found \(other.kindDescription)")
            }
        }
        guard let latitude = try number("latitude", required: true), let longitude = try number("longitude", required: true) else {
            throw ValueError("a location needs latitude and longitude")
        }
        try self.init(latitude: latitude, longitude: longitude,
                      altitude: try number("altitude", required: false), accuracy: try number("accuracy", required: false))
    }

    /// The line that `parse` reads back: `19.4326 -99.1332 2240 5` (`?` for an unknown altitude
    /// before a known accuracy).
    public var typedString: String {
        var words = [Self.number(latitude), Self.number(longitude)]
        if altitude != nil || accuracy != nil { words.append(altitude.map(Self.number) ?? "?") }
        if let accuracy { words.append(Self.number(accuracy)) }
        return words.joined(separator: " ")
    }

    /// `19.4326, -99.1332 (±5 m)`, for reading.
    public var description: String {
        var text = "\(Self.number(latitude)), \(Self.number(longitude))"
        if let altitude { text += ", \(Self.number(altitude)) m" }
        if let accuracy { text += " (±\(Self.number(accuracy)) m)" }
        return text
    }

    /// The point itself when its accuracy is `limit` metres or better (a template's
    /// `minAccuracy`). A point whose accuracy is unknown (typed with two or three numbers) is
    /// refused too: the template asked for a known accuracy.
    public func checked(accuracyWithin limit: Double) throws(ValueError) -> Geopoint {
        guard let accuracy else {
            throw ValueError("the accuracy of this location is unknown and must be \(Self.number(limit)) m or better — give it as the fourth number")
        }
        guard accuracy <= limit else {
            throw ValueError("the accuracy is \(Self.number(accuracy)) m, worse than the \(Self.number(limit)) m required — wait for a better fix")
        }
        return self
    }

    /// The great-circle distance in metres (haversine, on a sphere of the Earth's mean radius:
    /// within 0.5 % of the ellipsoid).
    public func distance(to other: Geopoint) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (other.longitude - longitude) * .pi / 180
        let a = pow(sin(Δφ / 2), 2) + cos(φ1) * cos(φ2) * pow(sin(Δλ / 2), 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(max(0, a))))
    }

    /// The point `metres` away along the initial `bearing` (degrees clockwise from north) on the
    /// same sphere, keeping altitude and accuracy: for simulated points near one another. The
    /// longitude wraps into −180…180; a path over a pole comes down the other side.
    public func moved(metres: Double, bearing: Double) -> Geopoint {
        let δ = metres / Self.earthRadius, θ = bearing * .pi / 180
        let φ1 = latitude * .pi / 180, λ1 = longitude * .pi / 180
        let sinφ2 = sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ)
        let φ2 = asin(min(1, max(-1, sinφ2)))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sinφ2)
        var longitude = (λ2 * 180 / .pi).truncatingRemainder(dividingBy: 360)
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        let latitude = min(90, max(-90, φ2 * 180 / .pi))
        return Geopoint(unchecked: latitude, longitude, altitude, accuracy)
    }

    /// A simulated fix within 3 km of `base` (nearer ones likelier, evenly over the disc), its
    /// altitude a few metres from the base's, its accuracy 3–12 m (no worse than `accuracyAtMost`).
    public static func simulated(near base: Geopoint, accuracyAtMost limit: Double? = nil,
                                 _ generator: inout SeededGenerator) -> Geopoint? {
        let distance = 3_000 * generator.unit().squareRoot()
        let moved = base.moved(metres: distance, bearing: generator.unit() * 360)
        var accuracy = (3 + generator.unit() * 9).rounded()
        if let limit { accuracy = min(accuracy, limit) }
        let altitude = ((base.altitude ?? 0) + generator.normal() * 5).rounded()
        func rounded(_ degrees: Double) -> Double { (degrees * 1e6).rounded() / 1e6 }
        return try? Geopoint(latitude: rounded(moved.latitude), longitude: rounded(moved.longitude),
                             altitude: altitude, accuracy: accuracy)
    }

    /// Where a simulation's points cluster when it is not told (`mi simulate --near`): a point on
    /// latitudes −50…60 derived from the seed alone, so every form of a run lies near the others
    /// and `--seed S` repeats it.
    public static func simulationBase(seed: UInt64) -> Geopoint? {
        var generator = SeededGenerator(seed: seed ^ 0x6E0_901D_7A5E_B0A7)
        let latitude = ((-50 + generator.unit() * 110) * 1e4).rounded() / 1e4
        let longitude = ((-180 + generator.unit() * 360) * 1e4).rounded() / 1e4
        let altitude = (generator.unit() * 2_000).rounded()
        return try? Geopoint(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    private init(unchecked latitude: Double, _ longitude: Double, _ altitude: Double?, _ accuracy: Double?) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        return formatNumber(value)
    }
}

/// The smallest latitude/longitude box holding a set of points, for statistics. Longitudes are
/// taken as they are: a set of points on both sides of the 180° meridian gets a box that spans
/// the globe the long way round (`west` ≤ `east` always).
public struct GeoBoundingBox: Hashable, Sendable {
    public let south: Double
    public let west: Double
    public let north: Double
    public let east: Double

    /// Nil for no points.
    public init?<Points: Sequence>(_ points: Points) where Points.Element == Geopoint {
        var iterator = points.makeIterator()
        guard let first = iterator.next() else { return nil }
        var south = first.latitude, north = first.latitude, west = first.longitude, east = first.longitude
        while let point = iterator.next() {
            south = min(south, point.latitude)
            north = max(north, point.latitude)
            west = min(west, point.longitude)
            east = max(east, point.longitude)
        }
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    public func contains(_ point: Geopoint) -> Bool {
        (south...north).contains(point.latitude) && (west...east).contains(point.longitude)
    }

    /// The middle of the box.
    public var center: (latitude: Double, longitude: Double) { ((south + north) / 2, (west + east) / 2) }
}
