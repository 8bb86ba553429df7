import Foundation
import MIKit

/// One cell that holds a value.
public struct XLSXCell: Hashable, Sendable {
    /// From 1 (A).
    public let column: Int
    public let value: XLSXValue

    public init(column: Int, value: XLSXValue) {
        self.column = column
        self.value = value
    }

    public var columnLetters: String { XLSXCellReference.columnLetters(column) }
}

/// A row that holds at least one value, numbered as in the file. Cells are kept sparse, in column
/// order; `self[column]` and `values` give them as optional values.
public struct XLSXRow: Hashable, Sendable {
    /// The row's number in the sheet, from 1, for messages (`survey`, row 12, column C).
    public let number: Int
    /// The cells with a value, in column order.
    public let cells: [XLSXCell]

    public init(number: Int, cells: [XLSXCell]) {
        self.number = number
        self.cells = cells
    }

    /// The value in `column` (from 1), or nil when that cell is empty.
    public subscript(column: Int) -> XLSXValue? {
        let index = cells.lowerBound(of: column) { $0.column }
        return index < cells.count && cells[index].column == column ? cells[index].value : nil
    }

    /// The row as optional values from column A to its last cell with a value.
    public var values: [XLSXValue?] {
        var values = [XLSXValue?](repeating: nil, count: cells.last?.column ?? 0)
        for cell in cells { values[cell.column - 1] = cell.value }
        return values
    }
}

/// One sheet: its rows with values, in order, and its merged ranges.
public struct XLSXSheet: Hashable, Sendable {
    public let name: String
    /// Hidden or very hidden in the spreadsheet program.
    public let isHidden: Bool
    /// Rows that hold a value; empty rows are absent (look at `XLSXRow.number`).
    public let rows: [XLSXRow]
    /// Merged ranges; a merged range's value is in its top-left cell, the other cells are empty.
    public let mergedRanges: [XLSXCellRange]

    public init(name: String, isHidden: Bool = false, rows: [XLSXRow], mergedRanges: [XLSXCellRange] = []) {
        self.name = name
        self.isHidden = isHidden
        self.rows = rows
        self.mergedRanges = mergedRanges
    }

    /// The value at `reference`, or nil when that cell is empty.
    public subscript(reference: XLSXCellReference) -> XLSXValue? {
        let index = rows.lowerBound(of: reference.row) { $0.number }
        return index < rows.count && rows[index].number == reference.row ? rows[index][reference.column] : nil
    }

    /// The merged range a cell belongs to, if any.
    public func mergedRange(containing reference: XLSXCellReference) -> XLSXCellRange? {
        mergedRanges.first { $0.contains(reference) }
    }
}

/// A workbook read from an .xlsx file: its sheets in tab order with their values.
///
/// ```swift
/// let workbook = try XLSXWorkbook(contentsOf: url)
/// guard let survey = workbook.sheet(named: "survey") else { … }
/// for row in survey.rows { let type = row[1]?.text … }
/// ```
public struct XLSXWorkbook: Hashable, Sendable {
    /// In tab order.
    public let sheets: [XLSXSheet]
    /// The workbook counts dates from 1904-01-01 (`<workbookPr date1904="1"/>`); dates are already converted.
    public let uses1904DateSystem: Bool

    public init(sheets: [XLSXSheet], uses1904DateSystem: Bool = false) {
        self.sheets = sheets
        self.uses1904DateSystem = uses1904DateSystem
    }

    /// Reads the .xlsx file at `url`.
    public init(contentsOf url: URL, limits: XLSXLimits = .default) throws {
        var package = try XLSXPackage(url: url, limits: limits)
        self = try Self.read(&package)
    }

    /// Reads an .xlsx workbook held in memory (an upload); `name` is used in messages.
    public init(data: Data, name: String = "the upload", limits: XLSXLimits = .default) throws {
        var package = try XLSXPackage(data: data, name: name, limits: limits)
        self = try Self.read(&package)
    }

    /// The sheet whose name matches `name` without regard to case (`Survey`, `SURVEY`).
    public func sheet(named name: String) -> XLSXSheet? {
        let wanted = name.lowercased()
        return sheets.first { $0.name.lowercased() == wanted }
    }

    public var sheetNames: [String] { sheets.map(\.name) }

    private static func read(_ package: inout XLSXPackage) throws -> XLSXWorkbook {
        // The workbook part is named by the package relationships; xl/workbook.xml when they are missing.
        var workbookPath = "xl/workbook.xml"
        if let rootRels = try package.part("_rels/.rels") {
            let rels = RelationshipsHandler()
            try XMLScanner.scan(rootRels, part: "_rels/.rels", with: rels)
            if let target = rels.target(ofTypeEndingWith: "officeDocument") {
                workbookPath = RelationshipsHandler.resolve(target, relativeTo: "")
            }
        }
        let workbook = WorkbookHandler()
        try XMLScanner.scan(try package.requiredPart(workbookPath), part: workbookPath, with: workbook)
        guard !workbook.sheets.isEmpty else { throw XLSXError.noSheets }

        let relsPath = relationshipsPath(of: workbookPath)
        let rels = RelationshipsHandler()
        try XMLScanner.scan(try package.requiredPart(relsPath), part: relsPath, with: rels)

        var sharedStrings: [String] = []
        let sharedStringsPath = rels.target(ofTypeEndingWith: "sharedStrings")
            .map { RelationshipsHandler.resolve($0, relativeTo: workbookPath) }
        if let path = sharedStringsPath, let data = try package.part(path) {
            let handler = SharedStringsHandler()
            try XMLScanner.scan(data, part: path, with: handler)
            sharedStrings = handler.strings
        }
        var dateStyles: [Bool] = []
        if let path = rels.target(ofTypeEndingWith: "styles").map({ RelationshipsHandler.resolve($0, relativeTo: workbookPath) }),
           let data = try package.part(path) {
            let handler = StylesHandler()
            try XMLScanner.scan(data, part: path, with: handler)
            dateStyles = handler.dateStyles
        }

        // The sheets' parts are unpacked one after another (one reader goes through the zip), then
        // scanned on every core. What goes wrong is reported as reading them one at a time would:
        // the first sheet in tab order with a problem, unpacking before scanning.
        var seen: Set<String> = []
        var parts: [Data] = []
        var paths: [String] = []
        var unpackingError: (any Error)?
        for entry in workbook.sheets {
            do {
                guard seen.insert(entry.name.lowercased()).inserted else { throw XLSXError.duplicateSheetName(entry.name) }
                guard let relationship = rels.relationships[entry.relationshipID], !relationship.isExternal else {
                    throw XLSXError.badSheetEntry(sheet: entry.name,
                                                  detail: "its r:id \(entry.relationshipID) is not in \(relsPath)")
                }
                let path = RelationshipsHandler.resolve(relationship.target, relativeTo: workbookPath)
                parts.append(try package.requiredPart(path))
                paths.append(path)
            } catch {
                unpackingError = error
                break
            }
        }
        let names = workbook.sheets.map(\.name)
        let (strings, styles, sheetParts, partPaths, date1904) = (sharedStrings, dateStyles, parts, paths, workbook.date1904)
        let scanned = Slots<Result<([XLSXRow], [XLSXCellRange]), any Error>>(count: parts.count)
        WorkPieces.run(WorkPieces.ranges(of: parts.count, pieces: parts.count)) { index, _ in
            let handler = WorksheetHandler(sheetName: names[index], sharedStrings: strings, dateStyles: styles, date1904: date1904)
            scanned.set(index, Result {
                try XMLScanner.scan(sheetParts[index], part: partPaths[index], with: handler)
                return (handler.rows, handler.mergedRanges)
            })
        }
        var sheets: [XLSXSheet] = []
        for (index, result) in scanned.values().enumerated() {
            let entry = workbook.sheets[index]
            let (rows, mergedRanges) = try result.get()
            sheets.append(XLSXSheet(name: entry.name, isHidden: entry.isHidden, rows: rows, mergedRanges: mergedRanges))
        }
        if let unpackingError { throw unpackingError }
        return XLSXWorkbook(sheets: sheets, uses1904DateSystem: workbook.date1904)
    }

    /// `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`.
    static func relationshipsPath(of partPath: String) -> String {
        var segments = partPath.split(separator: "/").map(String.init)
        let name = segments.popLast() ?? ""
        return (segments + ["_rels", name + ".rels"]).joined(separator: "/")
    }
}
