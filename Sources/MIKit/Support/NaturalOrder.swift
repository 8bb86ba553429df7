import Foundation

/// Names in the order a person reads them: the numbers inside a name compare by their value,
/// so `sim-3-2` comes before `sim-3-12` (a byte order puts `1` before `2`). Used wherever forms
/// are listed by name, and stored beside the name by mi-server so both of its databases sort
/// by it in an index.
public enum NaturalOrder {
    /// A text whose byte order is the natural order of `name`: every run of ASCII digits becomes
    /// its length (two digits, leading zeros dropped) followed by its digits, so a longer number
    /// sorts after a shorter one; everything else stays as it is. Equal numbers with different
    /// leading zeros (`07`, `7`) compare equal here; the stored order breaks the tie.
    public static func key(_ name: String) -> String {
        var key = ""
        key.reserveCapacity(name.utf8.count + 8)
        var digits: [Character] = []
        func flush() {
            guard !digits.isEmpty else { return }
            let significant = digits.drop { $0 == "0" }
            let number = significant.isEmpty ? "0" : String(significant)
            // 99 digits are far more than any name holds; longer runs keep their order by length.
            key += String(format: "%02d", min(number.count, 99)) + number
            digits.removeAll(keepingCapacity: true)
        }
        for character in name {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else {
                flush()
                key.append(character)
            }
        }
        flush()
        return key
    }

    /// Whether `a` comes before `b` naturally (then by bytes, so the order is total).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        let (left, right) = (key(a), key(b))
        return left == right ? Array(a.utf8).lexicographicallyPrecedes(b.utf8) : Array(left.utf8).lexicographicallyPrecedes(right.utf8)
    }
}
