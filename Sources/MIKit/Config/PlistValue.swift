import Foundation

/// Any property-list value, decoded with `PropertyListDecoder` (XML or binary) so the
/// configuration can be checked key by key and every problem reported at once.
public enum PlistValue: Decodable, Equatable, Sendable {
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    public init(from decoder: Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: PlistValue] = [:]
            for key in container.allKeys {
                dictionary[key.stringValue] = try container.decode(PlistValue.self, forKey: key)
            }
            self = .dictionary(dictionary)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var array: [PlistValue] = []
            while !container.isAtEnd { array.append(try container.decode(PlistValue.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if let value = try? single.decode(Bool.self) { self = .bool(value) }
        else if let value = try? single.decode(Int.self) { self = .integer(value) }
        else if let value = try? single.decode(Double.self) { self = .real(value) }
        else if let value = try? single.decode(Date.self) { self = .date(value) }
        else if let value = try? single.decode(Data.self) { self = .data(value) }
        else { self = .string(try single.decode(String.self)) }
    }

    /// The plist type's name as an administrator would say it ("an integer", "a string").
    public var kindDescription: String {
        switch self {
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .real: return "a real number"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        }
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}
