/// A cell's place: row and column, both from 1, as spreadsheets number them (`AB12` is row 12, column 28).
public struct XLSXCellReference: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The last row a sheet can have (Excel's and the format's limit).
    public static let maxRow = 1_048_576
    /// The last column a sheet can have, XFD.
    public static let maxColumn = 16_384

    public let row: Int
    public let column: Int

    /// Nil when `row` or `column` lies outside A1…XFD1048576.
    public init?(row: Int, column: Int) {
        guard (1...Self.maxRow).contains(row), (1...Self.maxColumn).contains(column) else { return nil }
        self.row = row
        self.column = column
    }

    /// Parses `B7`, `$B$7` or `xfd1048576`; nil for anything else or beyond the sheet's limits.
    public init?(_ text: some StringProtocol) {
        self.init(utf8: text.utf8)
    }

    /// Parses the UTF-8 bytes of `B7`, `$B$7` or `xfd1048576`, as `init?(_:)` does text.
    init?(utf8: some Sequence<UInt8>) {
        var column = 0
        var row = 0
        var letters = 0
        var digits = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "$") where digits == 0:
                continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z") where digits == 0:
                column = column * 26 + Int(byte - UInt8(ascii: "A")) + 1
                letters += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z") where digits == 0:
                column = column * 26 + Int(byte - UInt8(ascii: "a")) + 1
                letters += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9") where letters > 0:
                row = row * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            default:
                return nil
            }
            if letters > 3 || digits > 7 { return nil }
        }
        guard digits > 0 else { return nil }
        self.init(row: row, column: column)
    }

    /// The column's letters: 1 → A, 27 → AA, 16384 → XFD.
    public static func columnLetters(_ column: Int) -> String {
        var number = column
        var letters: [Character] = []
        while number > 0 {
            let remainder = (number - 1) % 26
            letters.append(Character(Unicode.Scalar(UInt8(65 + remainder))))
            number = (number - 1) / 26
        }
        return String(letters.reversed())
    }

    public var columnLetters: String { Self.columnLetters(column) }

    /// `B7`.
    public var description: String { "\(columnLetters)\(row)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.row, lhs.column) < (rhs.row, rhs.column)
    }
}

/// A rectangle of cells, such as a merged range `A1:C2`.
public struct XLSXCellRange: Hashable, Sendable, CustomStringConvertible {
    /// The top-left cell, where a merged range keeps its value.
    public let first: XLSXCellReference
    /// The bottom-right cell.
    public let last: XLSXCellReference

    public init(first: XLSXCellReference, last: XLSXCellReference) {
        self.first = XLSXCellReference(row: min(first.row, last.row), column: min(first.column, last.column)) ?? first
        self.last = XLSXCellReference(row: max(first.row, last.row), column: max(first.column, last.column)) ?? last
    }

    /// Parses `A1:C2`, or a single cell `B3` as a one-cell range.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let first = XLSXCellReference(parts[0]),
              let last = XLSXCellReference(parts[parts.count - 1]) else { return nil }
        self.init(first: first, last: last)
    }

    public func contains(_ cell: XLSXCellReference) -> Bool {
        (first.row...last.row).contains(cell.row) && (first.column...last.column).contains(cell.column)
    }

    public var description: String { first == last ? first.description : "\(first):\(last)" }
}
