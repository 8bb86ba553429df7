import Foundation

/// Names that come from outside (users, template ids, form names, media file names) become
/// path components only after this check, so they can never leave the store's root.
public enum SafeName {
    /// Why `name` cannot be a path component, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > 200 { return "it is longer than 200 bytes" }
        // Most names are printable ASCII: the same checks on the bytes, without Foundation's
        // `contains`, which goes through NSString on Linux.
        let utf8 = name.utf8
        if utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            if utf8.contains(UInt8(ascii: "/")) { return "it contains \"/\"" }
            if utf8.contains(UInt8(ascii: "\\")) { return "it contains \"\\\"" }
            if zip(utf8, utf8.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }) { return "it contains \"..\"" }
            if utf8.first == UInt8(ascii: ".") { return "it starts with \".\"" }
            if utf8.first == UInt8(ascii: "-") { return "it starts with \"-\"" }
            if utf8.first == 0x20 || utf8.last == 0x20 { return "it starts or ends with a space" }
            return nil
        }
        if name.contains("/") { return "it contains \"/\"" }
        if name.contains("\\") { return "it contains \"\\\"" }
        if name.contains("..") { return "it contains \"..\"" }
        if name.hasPrefix(".") { return "it starts with \".\"" }
        if name.hasPrefix("-") { return "it starts with \"-\"" }
        for scalar in name.unicodeScalars {
            if scalar.value == 0 { return "it contains a NUL character" }
            if TextRules.isControl(scalar) || scalar.properties.generalCategory == .format
                || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator {
                return "it contains a control character (U+\(String(scalar.value, radix: 16, uppercase: true)))"
            }
        }
        if name.trimmingCharacters(in: .whitespaces) != name { return "it starts or ends with a space" }
        return nil
    }

    /// Returns `name` when it is safe, else throws naming what it is (`kind`, e.g. "user name").
    @discardableResult
    public static func check(_ name: String, as kind: String) throws -> String {
        if let reason = problem(name) {
            throw StoreError.unsafeName(kind: kind, name: name, reason: reason)
        }
        return name
    }

    /// A printable rendering of a hostile name for messages: control characters escaped as
    /// `DisplayText` shows them, and invisible format characters as `\u{xx}`.
    public static func printable(_ name: String) -> String {
        var result = ""
        for scalar in DisplayText.escaped(name).unicodeScalars {
            if scalar.properties.generalCategory == .format {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
