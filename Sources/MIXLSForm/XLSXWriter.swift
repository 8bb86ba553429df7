import Foundation
import ZIPFoundation

/// Writes a minimal, valid .xlsx: content types, relationships, the workbook, one part per sheet,
/// a shared strings table (or inline strings), and a small styles.xml with a bold font for a header
/// row and date formats. Excel, LibreOffice and openpyxl open what it writes, and `XLSXWorkbook`
/// reads it back to the same values.
public struct XLSXWriter: Sendable {
    /// A sheet to write: rows of optional values from column A, written from row 1.
    public struct Sheet: Sendable, Equatable {
        public var name: String
        public var rows: [[XLSXValue?]]
        /// The first row in bold (a header row such as XLSForm's `type | name | label`).
        public var boldFirstRow: Bool

        public init(name: String, rows: [[XLSXValue?]], boldFirstRow: Bool = false) {
            self.name = name
            self.rows = rows
            self.boldFirstRow = boldFirstRow
        }
    }

    /// Where strings go: one shared table (what Excel writes; smaller when strings repeat) or in each cell.
    public enum StringStorage: Sendable {
        case shared
        case inline
    }

    public var strings: StringStorage

    public init(strings: StringStorage = .shared) {
        self.strings = strings
    }

    // Cell formats in styles.xml's cellXfs, by index.
    private enum Style: Int {
        case plain = 0, bold = 1, date = 2, dateTime = 3, time = 4
    }

    /// The workbook's bytes.
    public func data(_ sheets: [Sheet]) throws -> Data {
        try Self.validate(sheets)
        var shared = SharedStrings()
        var sheetParts: [String] = []
        for sheet in sheets {
            sheetParts.append(try worksheet(sheet, shared: &shared))
        }
        var parts: [(String, String)] = [
            ("[Content_Types].xml", contentTypes(sheetCount: sheets.count, hasSharedStrings: strings == .shared)),
            ("_rels/.rels", Self.rootRelationships),
            ("xl/workbook.xml", workbook(sheets)),
            ("xl/_rels/workbook.xml.rels", workbookRelationships(sheetCount: sheets.count, hasSharedStrings: strings == .shared)),
            ("xl/styles.xml", Self.styles),
        ]
        if strings == .shared { parts.append(("xl/sharedStrings.xml", shared.xml)) }
        for (index, part) in sheetParts.enumerated() { parts.append(("xl/worksheets/sheet\(index + 1).xml", part)) }
        return try Self.zip(parts)
    }

    /// Writes the workbook to `url`, replacing any file there only once it is complete.
    public func write(_ sheets: [Sheet], to url: URL) throws {
        let bytes = try data(sheets)
        do {
            try bytes.write(to: url, options: .atomic)
        } catch {
            throw XLSXError.writeFailed("\(url.path): \(error.localizedDescription)")
        }
    }

    // MARK: - Validation

    static func validate(_ sheets: [Sheet]) throws {
        guard !sheets.isEmpty else { throw XLSXError.writeFailed("a workbook needs at least one sheet") }
        var seen: Set<String> = []
        for sheet in sheets {
            let name = sheet.name
            if name.isEmpty || name.utf16.count > 31 {
                throw XLSXError.invalidSheetName(name, reason: "a sheet name has 1 to 31 characters")
            }
            if let bad = name.first(where: { "[]:*?/\\".contains($0) }) {
                throw XLSXError.invalidSheetName(name, reason: "it contains \(bad), which sheet names cannot")
            }
            if name.hasPrefix("'") || name.hasSuffix("'") {
                throw XLSXError.invalidSheetName(name, reason: "it begins or ends with an apostrophe")
            }
            if name.unicodeScalars.contains(where: { !isXMLCharacter($0) || $0.value < 0x20 }) {
                throw XLSXError.invalidSheetName(name, reason: "it contains a control character")
            }
            guard seen.insert(name.lowercased()).inserted else { throw XLSXError.duplicateSheetName(name) }
            if sheet.rows.count > XLSXCellReference.maxRow {
                throw XLSXError.writeFailed("sheet \(name) has \(sheet.rows.count) rows; a sheet holds at most 1048576")
            }
            if let wide = sheet.rows.firstIndex(where: { $0.count > XLSXCellReference.maxColumn }) {
                throw XLSXError.writeFailed("sheet \(name) row \(wide + 1) has more than 16384 columns")
            }
        }
    }

    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    // MARK: - Parts

    private func worksheet(_ sheet: Sheet, shared: inout SharedStrings) throws -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        xml += #"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">"#
        let width = sheet.rows.map(\.count).max() ?? 0
        if width > 0 {
            xml += #"<dimension ref="A1:\#(XLSXCellReference.columnLetters(width))\#(sheet.rows.count)"/>"#
        }
        xml += "<sheetData>"
        for (rowIndex, row) in sheet.rows.enumerated() where row.contains(where: { $0 != nil }) {
            let rowNumber = rowIndex + 1
            xml += #"<row r="\#(rowNumber)">"#
            let bold = sheet.boldFirstRow && rowIndex == 0
            for (columnIndex, value) in row.enumerated() {
                guard let value else { continue }
                let reference = "\(XLSXCellReference.columnLetters(columnIndex + 1))\(rowNumber)"
                let boldAttribute = bold ? #" s="\#(Style.bold.rawValue)""# : ""
                switch value {
                case .string(let text):
                    let escaped = try Self.cellText(text, sheet: sheet.name, cell: reference)
                    switch strings {
                    case .shared:
                        xml += #"<c r="\#(reference)"\#(boldAttribute) t="s"><v>\#(shared.index(of: escaped))</v></c>"#
                    case .inline:
                        xml += #"<c r="\#(reference)"\#(boldAttribute) t="inlineStr"><is>\#(Self.textElement(escaped))</is></c>"#
                    }
                case .number(let number):
                    guard number.isFinite else {
                        throw XLSXError.unwritableValue(sheet: sheet.name, cell: reference, reason: "\(number) is not a finite number")
                    }
                    xml += #"<c r="\#(reference)"\#(boldAttribute)><v>\#(Self.numberText(number))</v></c>"#
                case .bool(let bool):
                    xml += #"<c r="\#(reference)"\#(boldAttribute) t="b"><v>\#(bool ? 1 : 0)</v></c>"#
                case .date(let date):
                    let style: Style = date.isTimeOnly ? .time
                        : (date.hour == 0 && date.minute == 0 && date.second == 0 && date.millisecond == 0) ? .date : .dateTime
                    xml += #"<c r="\#(reference)" s="\#(style.rawValue)"><v>\#(Self.numberText(date.serialIn1900System))</v></c>"#
                case .error(let error):
                    let allowed = ["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"]
                    guard allowed.contains(error) else {
                        throw XLSXError.unwritableValue(sheet: sheet.name, cell: reference, reason: "\(error) is not a spreadsheet error value")
                    }
                    xml += #"<c r="\#(reference)" t="e"><v>\#(Self.escape(error))</v></c>"#
                }
            }
            xml += "</row>"
        }
        xml += "</sheetData></worksheet>"
        return xml
    }

    /// Escapes a string for a cell: XML's five characters, and a literal `_xHHHH_` as `_x005F_xHHHH_`
    /// so readers do not decode it. Characters XML cannot carry and over-long text are refused.
    static func cellText(_ text: String, sheet: String, cell: String) throws -> String {
        if let bad = text.unicodeScalars.first(where: { !isXMLCharacter($0) }) {
            throw XLSXError.unwritableValue(sheet: sheet, cell: cell,
                                            reason: String(format: "the text contains the control character U+%04X", bad.value))
        }
        if text.utf16.count > 32_767 {
            throw XLSXError.unwritableValue(sheet: sheet, cell: cell, reason: "the text is longer than a cell's 32,767 characters")
        }
        var protected = text
        if text.contains("_x") {
            protected = text.replacingOccurrences(of: #"_(x[0-9A-Fa-f]{4}_)"#, with: "_x005F_$1", options: .regularExpression)
        }
        return escape(protected)
    }

    static func textElement(_ escaped: String) -> String {
        let needsPreserve = escaped.first.map { $0.isWhitespace } == true || escaped.last.map { $0.isWhitespace } == true
        return needsPreserve ? #"<t xml:space="preserve">\#(escaped)</t>"# : "<t>\(escaped)</t>"
    }

    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// Whole numbers without a decimal point; others with the shortest text that reads back exactly.
    static func numberText(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    private struct SharedStrings {
        private var indexes: [String: Int] = [:]
        private var ordered: [String] = []
        private var references = 0

        mutating func index(of escaped: String) -> Int {
            references += 1
            if let index = indexes[escaped] { return index }
            indexes[escaped] = ordered.count
            ordered.append(escaped)
            return ordered.count - 1
        }

        var xml: String {
            var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
            xml += #"<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="\#(references)" uniqueCount="\#(ordered.count)">"#
            for string in ordered { xml += "<si>\(XLSXWriter.textElement(string))</si>" }
            return xml + "</sst>"
        }
    }

    private func contentTypes(sheetCount: Int, hasSharedStrings: Bool) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        xml += #"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#
        xml += #"<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>"#
        xml += #"<Default Extension="xml" ContentType="application/xml"/>"#
        xml += #"<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>"#
        xml += #"<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>"#
        if hasSharedStrings {
            xml += #"<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>"#
        }
        for index in 1...sheetCount {
            xml += #"<Override PartName="/xl/worksheets/sheet\#(index).xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>"#
        }
        return xml + "</Types>"
    }

    private static let rootRelationships = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
        + #"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>"#
        + "</Relationships>"

    private func workbook(_ sheets: [Sheet]) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        xml += #"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">"#
        xml += "<sheets>"
        for (index, sheet) in sheets.enumerated() {
            xml += #"<sheet name="\#(Self.escape(sheet.name))" sheetId="\#(index + 1)" r:id="rId\#(index + 1)"/>"#
        }
        return xml + "</sheets></workbook>"
    }

    private func workbookRelationships(sheetCount: Int, hasSharedStrings: Bool) -> String {
        let base = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        xml += #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
        for index in 1...sheetCount {
            xml += #"<Relationship Id="rId\#(index)" Type="\#(base)worksheet" Target="worksheets/sheet\#(index).xml"/>"#
        }
        xml += #"<Relationship Id="rId\#(sheetCount + 1)" Type="\#(base)styles" Target="styles.xml"/>"#
        if hasSharedStrings {
            xml += #"<Relationship Id="rId\#(sheetCount + 2)" Type="\#(base)sharedStrings" Target="sharedStrings.xml"/>"#
        }
        return xml + "</Relationships>"
    }

    /// Fonts 0 plain, 1 bold; cell formats 0 plain, 1 bold, 2 date (14), 3 date and time (22), 4 time (21).
    private static let styles = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        + #"<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#
        + #"<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>"#
        + #"<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>"#
        + #"<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>"#
        + #"<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>"#
        + #"<cellXfs count="5">"#
        + #"<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>"#
        + #"<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>"#
        + #"<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>"#
        + #"<xf numFmtId="22" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>"#
        + #"<xf numFmtId="21" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>"#
        + "</cellXfs>"
        + #"<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>"#
        + "</styleSheet>"

    private static func zip(_ parts: [(String, String)]) throws -> Data {
        do {
            let archive = try Archive(accessMode: .create)
            // A fixed time stamp: the same sheets give the same bytes.
            let stamp = Date(timeIntervalSince1970: 946_684_800)
            for (path, text) in parts {
                let bytes = Data(text.utf8)
                try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), modificationDate: stamp,
                                     compressionMethod: .deflate) { position, size in
                    let start = Int(position)
                    return bytes.subdata(in: start..<min(start + size, bytes.count))
                }
            }
            guard let data = archive.data else { throw XLSXError.writeFailed("the zip was not built in memory") }
            return data
        } catch let error as XLSXError {
            throw error
        } catch {
            throw XLSXError.writeFailed("\(error)")
        }
    }
}
