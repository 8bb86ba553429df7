import Foundation

/// One worksheet part, streamed: rows and cells as the `<row>` and `<c>` elements give them (the
/// declared `<dimension>` is ignored, so a sheet that claims a million rows costs what it holds).
///
/// The reading is done by a `WorksheetReader` value the handler owns through a pointer: a class's
/// stored properties are checked for overlapping access each time they are touched, a value's
/// fields inside its own methods are not, and this runs for every element of the sheet.
final class WorksheetHandler: XMLHandler {
    private let reader: UnsafeMutablePointer<WorksheetReader>

    init(sheetName: String, sharedStrings: [String], dateStyles: [Bool], date1904: Bool) {
        reader = .allocate(capacity: 1)
        reader.initialize(to: WorksheetReader(sheetName: sheetName, sharedStrings: sharedStrings, dateStyles: dateStyles, date1904: date1904))
    }

    deinit {
        reader.deinitialize(count: 1)
        reader.deallocate()
    }

    var rows: [XLSXRow] { reader.pointee.rows }
    var mergedRanges: [XLSXCellRange] { reader.pointee.mergedRanges }
    var wantsText: Bool { reader.pointee.wantsText }
    func start(_ element: String, attributes: XMLAttributes) throws { try reader.pointee.start(element, attributes: attributes) }
    func end(_ element: String) throws { try reader.pointee.end(element) }
    func text(_ text: String) { reader.pointee.text(text) }
}

/// The rows and merged ranges of one worksheet, read element by element.
struct WorksheetReader {
    private let sheetName: String
    private let sharedStrings: [String]
    private let dateStyles: [Bool]
    private let date1904: Bool

    private(set) var rows: [XLSXRow] = []
    private(set) var mergedRanges: [XLSXCellRange] = []

    private var inSheetData = false
    private var rowNumber = 0
    private var rowCells: [XLSXCell] = []
    private var lastColumn = 0
    // The cell being read.
    private var inCell = false
    private var cellReference: XLSXCellReference?
    private var cellType = "n"
    private var cellStyle = 0
    private var valueText = ""
    private var hasValue = false
    private var inValue = false
    private var inInline = false
    private var inline = RichTextCollector()

    init(sheetName: String, sharedStrings: [String], dateStyles: [Bool], date1904: Bool) {
        self.sheetName = sheetName
        self.sharedStrings = sharedStrings
        self.dateStyles = dateStyles
        self.date1904 = date1904
    }

    var wantsText: Bool { inValue || (inInline && inline.wantsText) }

    mutating func start(_ element: String, attributes: XMLAttributes) throws {
        if inCell {
            switch element {
            case "v":
                inValue = true
                hasValue = true
            case "is":
                inInline = true
                hasValue = true
            default:
                if inInline { inline.start(element) }
            }
            return
        }
        switch element {
        case "sheetData":
            inSheetData = true
        case "row" where inSheetData:
            if let text = attributes["r"] {
                guard let number = Int(text), (1...XLSXCellReference.maxRow).contains(number) else {
                    throw XLSXError.badCellReference(sheet: sheetName, reference: "row \(text.prefix(40))")
                }
                guard number > rowNumber else {
                    throw XLSXError.badCellValue(sheet: sheetName, cell: "row \(number)",
                                                 detail: "the row comes after row \(rowNumber) in the file; rows must be in order")
                }
                rowNumber = number
            } else {
                rowNumber += 1
                guard rowNumber <= XLSXCellReference.maxRow else {
                    throw XLSXError.badCellReference(sheet: sheetName, reference: "row \(rowNumber)")
                }
            }
            rowCells.removeAll(keepingCapacity: true)
            lastColumn = 0
        case "c" where inSheetData:
            inCell = true
            if let bytes = attributes.bytes("r") {
                guard let reference = XLSXCellReference(utf8: bytes) else {
                    throw XLSXError.badCellReference(sheet: sheetName, reference: String((attributes["r"] ?? "").prefix(40)))
                }
                guard reference.row == rowNumber, reference.column > lastColumn else {
                    throw XLSXError.badCellValue(sheet: sheetName, cell: reference.description,
                                                 detail: "the cell is out of place in the file (in row \(rowNumber), after column \(XLSXCellReference.columnLetters(lastColumn)))")
                }
                cellReference = reference
            } else {
                guard let reference = XLSXCellReference(row: rowNumber, column: lastColumn + 1) else {
                    throw XLSXError.badCellReference(sheet: sheetName, reference: "row \(rowNumber), column \(lastColumn + 1)")
                }
                cellReference = reference
            }
            lastColumn = cellReference?.column ?? lastColumn
            cellType = attributes.bytes("t").map { Self.knownCellType($0) ?? attributes["t"] ?? "" } ?? "n"
            cellStyle = attributes.bytes("s").map(Self.style) ?? 0
            valueText = ""
            hasValue = false
        case "mergeCell":
            if let text = attributes["ref"] {
                guard let range = XLSXCellRange(text) else {
                    throw XLSXError.badCellReference(sheet: sheetName, reference: text)
                }
                mergedRanges.append(range)
            }
        default:
            break
        }
    }

    mutating func end(_ element: String) throws {
        if inCell {
            switch element {
            case "v":
                inValue = false
            case "is":
                inInline = false
            case "c":
                inCell = false
                if let reference = cellReference, let value = try cellValue(at: reference) {
                    rowCells.append(XLSXCell(column: reference.column, value: value))
                }
            default:
                if inInline { inline.end(element) }
            }
            return
        }
        switch element {
        case "row" where inSheetData:
            if !rowCells.isEmpty { rows.append(XLSXRow(number: rowNumber, cells: rowCells)) }
            // Rows of a sheet tend to be alike: room for as many cells as this one had.
            let count = rowCells.count
            rowCells = []
            rowCells.reserveCapacity(count)
        case "sheetData":
            inSheetData = false
        default:
            break
        }
    }

    mutating func text(_ text: String) {
        if inValue { valueText += text } else { inline.append(text) }
    }

    private mutating func cellValue(at reference: XLSXCellReference) throws -> XLSXValue? {
        if cellType == "inlineStr" {
            let text = inline.take()
            return hasValue ? .string(text) : nil
        }
        // An empty `<v/>` is no value, as openpyxl and Excel read it.
        guard hasValue, !valueText.isEmpty else { return nil }
        switch cellType {
        case "s":
            let trimmed = Self.trimmed(valueText)
            guard let index = Int(trimmed), index >= 0, index < sharedStrings.count else {
                throw XLSXError.badCellValue(sheet: sheetName, cell: reference.description,
                                             detail: "shared string number \(trimmed.prefix(40)) does not exist (the table has \(sharedStrings.count))")
            }
            return .string(sharedStrings[index])
        case "str":
            return .string(valueText)
        case "b":
            switch Self.trimmed(valueText).lowercased() {
            case "1", "true": return .bool(true)
            case "0", "false": return .bool(false)
            default:
                throw XLSXError.badCellValue(sheet: sheetName, cell: reference.description,
                                             detail: "\"\(valueText.prefix(40))\" is not a boolean (1 or 0)")
            }
        case "e":
            return .error(valueText)
        case "d":
            guard let date = Self.isoDate(valueText) else {
                throw XLSXError.badCellValue(sheet: sheetName, cell: reference.description,
                                             detail: "\"\(valueText.prefix(40))\" is not an ISO 8601 date")
            }
            return .date(date)
        case "n":
            let trimmed = Self.trimmed(valueText)
            if trimmed.isEmpty { return nil }
            guard let number = Double(trimmed), number.isFinite, !trimmed.hasPrefix("0x") else {
                throw XLSXError.badCellValue(sheet: sheetName, cell: reference.description,
                                             detail: "\"\(trimmed.prefix(40))\" is not a number")
            }
            if cellStyle > 0, cellStyle < dateStyles.count, dateStyles[cellStyle],
               let date = XLSXDateTime(serial: number, date1904: date1904) {
                return .date(date)
            }
            return .number(number)
        default:
            throw XLSXError.badCellValue(sheet: sheetName, cell: reference.description,
                                         detail: "unknown cell type t=\"\(cellType.prefix(20))\"")
        }
    }

    /// The `t` attribute when it is one of the known types, without making a new String.
    private static func knownCellType(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch bytes.count {
        case 1:
            switch bytes[0] {
            case UInt8(ascii: "s"): return "s"
            case UInt8(ascii: "n"): return "n"
            case UInt8(ascii: "b"): return "b"
            case UInt8(ascii: "e"): return "e"
            case UInt8(ascii: "d"): return "d"
            default: return nil
            }
        case 3:
            return equals(bytes, "str") ? "str" : nil
        case 9:
            return equals(bytes, "inlineStr") ? "inlineStr" : nil
        default:
            return nil
        }
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard let base = bytes.baseAddress, bytes.count == literal.utf8CodeUnitCount else { return bytes.isEmpty && literal.utf8CodeUnitCount == 0 }
        return memcmp(base, literal.utf8Start, bytes.count) == 0
    }

    /// The `s` attribute as `Int(text)` reads it (0 when it does not); plain digits without a String.
    private static func style(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return Int(String(decoding: bytes, as: UTF8.self)) ?? 0
        }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// Without surrounding spaces and tabs; the common case (none) without Foundation's scan.
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        if first != 0x20, first != 0x09, last != 0x20, last != 0x09 { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A `t="d"` cell: `2024-03-05`, `2024-03-05T14:30:00`, `…:00.250`, `…Z`.
    static func isoDate(_ text: String) -> XLSXDateTime? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "T", maxSplits: 1)
        guard let datePart = parts.first else { return nil }
        let fields = datePart.split(separator: "-").compactMap { Int($0) }
        guard fields.count == 3 else { return nil }
        var hour = 0, minute = 0, second = 0, millisecond = 0
        if parts.count == 2 {
            var time = parts[1]
            if time.hasSuffix("Z") { time = time.dropLast() }
            let pieces = time.split(separator: ":")
            guard pieces.count >= 2, let h = Int(pieces[0]), let m = Int(pieces[1]) else { return nil }
            hour = h
            minute = m
            if pieces.count == 3 {
                guard let seconds = Double(pieces[2]) else { return nil }
                second = Int(seconds)
                millisecond = Int(((seconds - Double(second)) * 1000).rounded())
            }
        }
        return XLSXDateTime(year: fields[0], month: fields[1], day: fields[2], hour: hour, minute: minute,
                            second: second, millisecond: millisecond)
    }
}
