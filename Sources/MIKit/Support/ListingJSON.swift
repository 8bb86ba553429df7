import Foundation

/// Encodes long listings (`mi queue --json`, `mi list --json`: thousands of flat items) to the
/// very text the CLI's `Terminal.json` prints — JSONEncoder's with `.prettyPrinted, .sortedKeys,
/// .withoutEscapingSlashes` and ISO 8601 dates — at a fraction of JSONEncoder's cost, which was
/// a fifth of a queue of 10,000 forms. The output types stay the one definition of the keys.
/// Only strings, whole numbers, booleans, whole-second dates, arrays and objects are written
/// here; anything else throws `Unsupported`, and the caller uses JSONEncoder.
public enum ListingJSON {
    /// A value this encoder does not write (the caller uses JSONEncoder).
    public struct Unsupported: Error {}

    /// The JSON text of `value`, or `Unsupported`.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = NodeEncoder(flag: Flag())
        try value.encode(to: encoder)
        guard let node = encoder.node, !encoder.flag.refused else { throw Unsupported() }
        var out: [UInt8] = []
        out.reserveCapacity(1 << 16)
        try write(node, depth: 0, to: &out)
        return out
    }

    // MARK: - The tree

    /// Set when a value took a path this encoder does not follow (a super-encoder).
    final class Flag { var refused = false }
    final class ObjectNode { var pairs: [(key: String, value: Node)] = [] }
    final class ArrayNode { var items: [Node] = [] }

    enum Node {
        case string(String)
        case literal(String)
        case object(ObjectNode)
        case array(ArrayNode)
    }

    static func node<T: Encodable>(for value: T, flag: Flag) throws -> Node {
        switch value {
        case let string as String: return .string(string)
        case let number as Int: return .literal(String(number))
        case let date as Date: return .string(try iso8601(date))
        case let bool as Bool: return .literal(bool ? "true" : "false")
        case let number as any BinaryInteger: return .literal("\(number)")
        case is Double, is Float, is Decimal, is URL, is Data: throw Unsupported()
        default:
            let encoder = NodeEncoder(flag: flag)
            try value.encode(to: encoder)
            guard let node = encoder.node else { throw Unsupported() }
            return node
        }
    }

    /// `2026-11-23T06:56:03Z`, as JSONEncoder's `.iso8601` writes a whole-second date.
    static func iso8601(_ date: Date) throws -> String {
        let interval = date.timeIntervalSince1970
        guard interval.rounded(.down) == interval, abs(interval) < 1e12 else { throw Unsupported() }
        let seconds = Int(interval)
        var days = seconds / 86_400, rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (year, month, day) = UTCDay.civil(daysSinceEpoch: days)
        guard (0...9999).contains(year) else { throw Unsupported() }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        let paddedYear = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return "\(paddedYear)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    // MARK: - Writing

    static func write(_ node: Node, depth: Int, to out: inout [UInt8]) throws {
        switch node {
        case .string(let string): writeString(string, to: &out)
        case .literal(let literal): out.append(contentsOf: literal.utf8)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            out.append(0x0A)
            for (index, item) in array.items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")); out.append(0x0A) }
                indent(depth + 1, &out)
                try write(item, depth: depth + 1, to: &out)
            }
            out.append(0x0A)
            indent(depth, &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            let pairs = object.pairs.sorted { $0.key < $1.key }
            guard !pairs.isEmpty else { throw Unsupported() }
            out.append(UInt8(ascii: "{"))
            out.append(0x0A)
            for index in pairs.indices {
                let pair = pairs[index]
                if index > 0 {
                    // A key encoded twice: JSONEncoder keeps the last; not worth copying here.
                    guard pairs[index - 1].key != pair.key else { throw Unsupported() }
                    out.append(UInt8(ascii: ","))
                    out.append(0x0A)
                }
                indent(depth + 1, &out)
                writeString(pair.key, to: &out)
                out.append(contentsOf: " : ".utf8)
                try write(pair.value, depth: depth + 1, to: &out)
            }
            out.append(0x0A)
            indent(depth, &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func indent(_ depth: Int, _ out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    /// `string` as JSONEncoder writes a string (quoted; `"`, `\\` and C0 controls escaped).
    public static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: - The encoder

    final class NodeEncoder: Encoder {
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var node: Node?
        let flag: Flag

        init(flag: Flag) { self.flag = flag }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let object: ObjectNode
            if case .object(let existing) = node { object = existing } else {
                object = ObjectNode()
                node = .object(object)
            }
            return KeyedEncodingContainer(Keyed<Key>(object: object, flag: flag))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let array: ArrayNode
            if case .array(let existing) = node { array = existing } else {
                array = ArrayNode()
                node = .array(array)
            }
            return Unkeyed(array: array, flag: flag)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let object: ObjectNode
        let flag: Flag
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { throw Unsupported() }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            object.pairs.append((key.stringValue, try ListingJSON.node(for: value, flag: flag)))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectNode()
            object.pairs.append((key.stringValue, .object(nested)))
            return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, flag: flag))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayNode()
            object.pairs.append((key.stringValue, .array(nested)))
            return Unkeyed(array: nested, flag: flag)
        }
        mutating func superEncoder() -> any Encoder { refuse() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { refuse() }
        private func refuse() -> any Encoder {
            flag.refused = true
            return NodeEncoder(flag: flag)
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let array: ArrayNode
        let flag: Flag
        var codingPath: [any CodingKey] { [] }
        var count: Int { array.items.count }

        mutating func encodeNil() throws { throw Unsupported() }
        mutating func encode<T: Encodable>(_ value: T) throws { array.items.append(try ListingJSON.node(for: value, flag: flag)) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectNode()
            array.items.append(.object(nested))
            return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, flag: flag))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayNode()
            array.items.append(.array(nested))
            return Unkeyed(array: nested, flag: flag)
        }
        mutating func superEncoder() -> any Encoder {
            flag.refused = true
            return NodeEncoder(flag: flag)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let encoder: NodeEncoder
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() throws { throw Unsupported() }
        mutating func encode<T: Encodable>(_ value: T) throws {
            guard encoder.node == nil else { throw Unsupported() }
            encoder.node = try ListingJSON.node(for: value, flag: encoder.flag)
        }
    }
}
