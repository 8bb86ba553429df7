import Foundation

/// Reading ASCII digits and decimals, shared by the value parsers.
enum DigitText {
    /// The number written by 1…`maxLength` ASCII digits (no sign, no spaces, no other scripts).
    static func number<S: StringProtocol>(_ text: S, maxLength: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxLength, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// `-99.1332`, `+19`, `0.5`: an optional sign, digits, optionally a dot and digits. Nil for
    /// anything else (`1e3`, `0x1p3`, `nan`, `inf`, `.5`, `5.`, `3,5`) and for a number too large to hold.
    static func decimal(_ text: String) -> Double? {
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
