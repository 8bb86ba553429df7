import Foundation
import MIKit

/// One line of gpsd's JSON protocol, as far as a position needs it.
public enum GPSDReport: Equatable, Sendable {
    /// `TPV`: `mode` 0/1 is no fix, 2 a 2D fix, 3 a 3D fix; `point` is set for a fix.
    case position(mode: Int, point: Geopoint?)
    /// `DEVICES`: how many receivers gpsd has.
    case devices(count: Int)
    /// `ERROR`: gpsd's message.
    case error(String)
    /// `VERSION`, `WATCH`, `SKY`, `DEVICE`, … : nothing a position needs.
    case other(String)
    /// Not gpsd's protocol: not a JSON object with a `class`, or a fix whose numbers are not a
    /// position. Says what came, quoted and cut short.
    case malformed(String)

    /// Reads one line (without its line end); never fails: what is not gpsd's is `malformed`.
    public static func parse(_ line: Substring) -> GPSDReport {
        guard let json = try? JSONValue.parse(Data(line.utf8)), let object = json.objectValue else {
            return .malformed("not a JSON object: \(excerpt(line))")
        }
        guard let kind = object["class"]?.stringValue else { return .malformed("a JSON object without a class: \(excerpt(line))") }
        switch kind {
        case "TPV":
            let mode = object["mode"]?.integerValue ?? 0
            guard mode >= 2 else { return .position(mode: mode, point: nil) }
            guard let latitude = object["lat"]?.numberValue, let longitude = object["lon"]?.numberValue else {
                return .position(mode: mode, point: nil)
            }
            // altHAE is the height above the WGS 84 ellipsoid (gpsd ≥ 3.20); `alt` is older gpsd's.
            let altitude = mode >= 3 ? (object["altHAE"]?.numberValue ?? object["alt"]?.numberValue) : nil
            let point = Result { () throws(ValueError) -> Geopoint in
                try Geopoint(latitude: latitude, longitude: longitude, altitude: altitude, accuracy: accuracy(object))
            }
            switch point {
            case .success(let point): return .position(mode: mode, point: point)
            case .failure(let error): return .malformed("an impossible position (\(error.rule)): \(excerpt(line))")
            }
        case "DEVICES":
            return .devices(count: object["devices"]?.arrayValue?.count ?? 0)
        case "ERROR":
            return .error(object["message"]?.stringValue ?? "(no message)")
        default:
            return .other(kind)
        }
    }

    /// The horizontal error in metres: `eph` when gpsd gives it, else the diagonal of the
    /// `epx` × `epy` error box, else unknown.
    static func accuracy(_ object: [String: JSONValue]) -> Double? {
        if let eph = object["eph"]?.numberValue, eph.isFinite, eph >= 0 { return eph }
        if let epx = object["epx"]?.numberValue, let epy = object["epy"]?.numberValue,
           epx.isFinite, epy.isFinite, epx >= 0, epy >= 0 {
            return (epx * epx + epy * epy).squareRoot()
        }
        return nil
    }

    static func excerpt(_ line: Substring) -> String {
        let shown = line.count > 80 ? String(line.prefix(80)) + "…" : String(line)
        return "\"\(SafeName.printable(shown))\""
    }
}

/// What the wait for a fix has seen so far, for a progress line ("waiting for a GPS fix… ±35 m").
public struct GPSProgress: Sendable, Equatable {
    /// Seconds since the wait began.
    public var elapsed: Double
    /// The last TPV's mode (0 before any).
    public var mode: Int
    /// The last fix's accuracy in metres, when it had one.
    public var accuracy: Double?
    /// The best accuracy seen so far.
    public var bestAccuracy: Double?
}
