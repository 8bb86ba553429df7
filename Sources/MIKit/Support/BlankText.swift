/// Whether a text holds nothing but white space — exactly what
/// `text.trimmingCharacters(in: .whitespaces).isEmpty` (or `.whitespacesAndNewlines`) answers,
/// without Foundation: on Linux that call copies every text into an NSString and back, and the
/// template validator asks it of every text, option and language name it reads.
///
/// The sets are Foundation's, scalar for scalar (checked against `CharacterSet` over every
/// scalar in the tests): Unicode's White_Space with U+200B ZERO WIDTH SPACE added, which
/// Foundation counts as a space; `.whitespaces` leaves out the line and paragraph breaks
/// (U+000A–U+000D, U+0085, U+2028, U+2029).
public enum BlankText {
    /// A member of `CharacterSet.whitespaces`: horizontal space.
    @inlinable
    public static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// A member of `CharacterSet.whitespacesAndNewlines`: space or a line break.
    @inlinable
    public static func isSpaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return isSpace(scalar)
        }
    }

    /// `text.trimmingCharacters(in: .whitespaces).isEmpty`.
    @inlinable
    public static func isBlank<S: StringProtocol>(_ text: S) -> Bool {
        // The usual text starts with a printable ASCII byte: answered by its first byte.
        if let first = text.utf8.first, first > 0x20, first < 0x80 { return false }
        return text.unicodeScalars.allSatisfy(isSpace)
    }

    /// `text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty`.
    @inlinable
    public static func isBlankOrNewlines<S: StringProtocol>(_ text: S) -> Bool {
        if let first = text.utf8.first, first > 0x20, first < 0x80 { return false }
        return text.unicodeScalars.allSatisfy(isSpaceOrNewline)
    }

    /// Whether `text` holds a space or line break anywhere:
    /// `text.unicodeScalars.contains { CharacterSet.whitespacesAndNewlines.contains($0) }`.
    @inlinable
    public static func containsSpaceOrNewline<S: StringProtocol>(_ text: S) -> Bool {
        text.unicodeScalars.contains(where: isSpaceOrNewline)
    }
}
