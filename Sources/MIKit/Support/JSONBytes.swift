import Foundation

/// A strict JSON parser over bytes (RFC 8259: no comments, no trailing commas, valid UTF-8,
/// finite numbers, no duplicate keys), much faster than decoding `JSONValue` through
/// `JSONDecoder`, which tries each type in turn. It says only *whether* the text is JSON;
/// callers that need to say what is wrong fall back to `JSONDecoder` for the message.
struct JSONBytes {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The whole text as one value, or nil when it is not valid JSON.
    static func parse(_ data: Data) -> JSONValue? {
        data.withUnsafeBytes { raw in
            var parser = JSONBytes(raw.bindMemory(to: UInt8.self))
            guard let value = parser.value() else { return nil }
            parser.skipSpace()
            return parser.index == parser.bytes.count ? value : nil
        }
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` after any white space.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The next value, or nil when it is not valid JSON.
    mutating func value(depth: Int = 0) -> JSONValue? {
        guard depth < 512 else { return nil }
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var object: [String: JSONValue] = [:]
            if take(UInt8(ascii: "}")) { return .object(object) }
            repeat {
                skipSpace()
                guard let key = string(), take(UInt8(ascii: ":")), let member = value(depth: depth + 1),
                      object.updateValue(member, forKey: key) == nil else { return nil }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? .object(object) : nil
        case UInt8(ascii: "["):
            index += 1
            var array: [JSONValue] = []
            if take(UInt8(ascii: "]")) { return .array(array) }
            repeat {
                guard let element = value(depth: depth + 1) else { return nil }
                array.append(element)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? .array(array) : nil
        case UInt8(ascii: "\""):
            return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        default: return number().map(JSONValue.number)
        }
    }

    mutating func literal(_ word: String) -> Bool {
        let utf8 = word.utf8
        guard index + utf8.count <= bytes.count else { return false }
        for (offset, byte) in utf8.enumerated() where bytes[index + offset] != byte { return false }
        index += utf8.count
        return true
    }

    /// A string at `index` (its opening quote), unescaped; nil when malformed.
    mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        var ascii = true
        // The common case: no escapes, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 { ascii = false }
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII needs no validation; anything else must be valid UTF-8.
                return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard var code = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code) {
                        // A high surrogate must be followed by an escaped low one.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(code) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(code) else { return nil }
                    scalars.append(contentsOf: UTF8.encode(scalar).map(Array.init) ?? [])
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                scalars.append(byte)
                index += 1
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// A number in JSON's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), finite.
    mutating func number() -> Double? {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return nil
        }
        var whole = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            whole = false
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            whole = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if whole, text.count <= 15 {
            // Small whole numbers (most of them) without going through text.
            var value = 0
            var negative = false
            for byte in text {
                if byte == UInt8(ascii: "-") { negative = true } else { value = value * 10 + Int(byte - 0x30) }
            }
            return Double(negative ? -value : value)
        }
        guard let number = Double(String(decoding: text, as: UTF8.self)), number.isFinite else { return nil }
        return number
    }

    /// Skips the next value without building it, checking only that brackets and strings
    /// match (for bytes already known to be valid JSON); false when they do not.
    mutating func skipValue() -> Bool {
        skipSpace()
        var depth = 0
        repeat {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; index += 1
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            default:
                index += 1
                // A scalar at the top ends at the next delimiter.
                if depth == 0 {
                    while index < bytes.count, !",}] \n\r\t".utf8.contains(bytes[index]) { index += 1 }
                }
            }
            if depth > 0 { continue }
            return depth == 0
        } while true
    }
}
