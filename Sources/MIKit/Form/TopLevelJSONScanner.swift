import Foundation

/// Finds the values of chosen keys at the top level of a JSON object without decoding the rest:
/// every other value (the answers, the audit trail, the template copy) is skipped by matching
/// brackets and strings. Key order, white space and indentation do not matter, so a form.json
/// rewritten by another JSON tool is read as fast as one `mi` wrote.
struct TopLevelJSONScanner {
    /// The keys wanted.
    let keys: Set<String>

    /// The raw JSON bytes of the value of each wanted key found, or nil when the data is not a
    /// JSON object this scanner can follow (the caller then decodes it whole, which says what
    /// is wrong).
    func values(in data: Data) -> [String: [UInt8]]? {
        data.withUnsafeBytes { raw -> [String: [UInt8]]? in
            var scanner = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            return scanner.values(keys: keys)
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
        static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
        static let colon = UInt8(ascii: ":"), comma = UInt8(ascii: ",")

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// The index just past the string that starts at `index` (a quote), or nil.
        mutating func skipString() -> Bool {
            guard index < bytes.count, bytes[index] == Self.quote else { return false }
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case Self.quote: index += 1; return true
                case Self.backslash: index += 2
                default: index += 1
                }
            }
            return false
        }

        /// Skips one value of any kind; false when the bytes are not JSON.
        mutating func skipValue() -> Bool {
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case Self.quote:
                return skipString()
            case Self.openBrace, Self.openBracket:
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case Self.quote:
                        guard skipString() else { return false }
                        continue
                    case Self.openBrace, Self.openBracket: depth += 1
                    case Self.closeBrace, Self.closeBracket:
                        depth -= 1
                        if depth == 0 { index += 1; return true }
                    default: break
                    }
                    index += 1
                }
                return false
            default:
                // A number, true, false or null: up to the next delimiter.
                let start = index
                while index < bytes.count {
                    switch bytes[index] {
                    case Self.comma, Self.closeBrace, Self.closeBracket, 0x20, 0x09, 0x0A, 0x0D:
                        return index > start
                    default: index += 1
                    }
                }
                return index > start
            }
        }

        mutating func values(keys: Set<String>) -> [String: [UInt8]]? {
            guard expect(Self.openBrace) else { return nil }
            var found: [String: [UInt8]] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == Self.closeBrace { return found }
            while true {
                skipSpace()
                let keyStart = index
                guard skipString() else { return nil }
                // Keys with escapes never match: the wanted keys are plain ASCII.
                let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[(keyStart + 1)..<(index - 1)]), as: UTF8.self)
                guard expect(Self.colon) else { return nil }
                skipSpace()
                let valueStart = index
                guard skipValue() else { return nil }
                if keys.contains(key) {
                    found[key] = Array(UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
                    if found.count == keys.count { return found }
                }
                if expect(Self.comma) { continue }
                guard expect(Self.closeBrace) else { return nil }
                return found
            }
        }
    }
}
