import Foundation

/// Everything that can be wrong with a workbook MI reads or writes. Each message names the part of
/// the zip (`xl/worksheets/sheet2.xml`) or the sheet and cell, says what is wrong, and what to do.
public enum XLSXError: LocalizedError, Equatable, Sendable {
    /// The file is not a zip archive at all (a CSV, an old binary .xls, a truncated download).
    case notAnXLSX(file: String)
    /// A part the workbook needs is absent from the zip.
    case missingPart(String)
    /// A part decompresses to more than the per-part limit (a zip bomb, or not a form's workbook).
    case partTooLarge(part: String, limit: Int)
    /// The parts read so far decompress to more than the whole-workbook limit.
    case workbookTooLarge(limit: Int)
    /// A part's compressed data is damaged (bad deflate stream, bad checksum).
    case unreadablePart(part: String, detail: String)
    /// A part is not well-formed XML.
    case malformedXML(part: String, line: Int, detail: String)
    /// A part declares a DTD; Office Open XML never does, and entity tricks hide behind one.
    case documentTypeDeclaration(part: String)
    /// The workbook lists no sheet.
    case noSheets
    /// A `<sheet>` in workbook.xml lacks its name or relationship, or points to a relationship that does not exist.
    case badSheetEntry(sheet: String, detail: String)
    /// Two sheets have the same name (compared without case, as spreadsheet programs do).
    case duplicateSheetName(String)
    /// A cell or range reference that is not `A1` style, or lies beyond XFD1048576.
    case badCellReference(sheet: String, reference: String)
    /// A cell's value cannot be read as its type says (shared string index out of range, a number that is not one…).
    case badCellValue(sheet: String, cell: String, detail: String)
    /// A sheet name the writer cannot use.
    case invalidSheetName(String, reason: String)
    /// A value the writer cannot put in a cell.
    case unwritableValue(sheet: String, cell: String, reason: String)
    /// The writer could not build the zip or write the file.
    case writeFailed(String)

    public var errorDescription: String? {
        switch self {
        case .notAnXLSX(let file):
            return "\(file) is not an .xlsx workbook (it is not a zip archive); save it from the spreadsheet program as Excel 2007-365 (.xlsx)"
        case .missingPart(let part):
            return "the workbook has no \(part); save it again from the spreadsheet program as .xlsx"
        case .partTooLarge(let part, let limit):
            return "\(part) unpacks to more than \(limit) bytes, the limit for one part of a workbook; this is not a form's workbook"
        case .workbookTooLarge(let limit):
            return "the workbook unpacks to more than \(limit) bytes in all, the limit for a workbook; this is not a form's workbook"
        case .unreadablePart(let part, let detail):
            return "\(part) is damaged in the zip (\(detail)); save the workbook again"
        case .malformedXML(let part, let line, let detail):
            return "\(part) line \(line) is not well-formed XML (\(detail)); save the workbook again from the spreadsheet program"
        case .documentTypeDeclaration(let part):
            return "\(part) declares a DTD (<!DOCTYPE>), which a workbook never does; refusing it"
        case .noSheets:
            return "the workbook has no sheet"
        case .badSheetEntry(let sheet, let detail):
            return "sheet \(sheet) in xl/workbook.xml: \(detail)"
        case .duplicateSheetName(let name):
            return "the workbook has two sheets named \(name) (names are compared without case)"
        case .badCellReference(let sheet, let reference):
            return "sheet \(sheet): \"\(reference)\" is not a cell reference between A1 and XFD1048576"
        case .badCellValue(let sheet, let cell, let detail):
            return "sheet \(sheet), cell \(cell): \(detail)"
        case .invalidSheetName(let name, let reason):
            return "\"\(name)\" cannot be a sheet name: \(reason)"
        case .unwritableValue(let sheet, let cell, let reason):
            return "sheet \(sheet), cell \(cell): \(reason)"
        case .writeFailed(let detail):
            return "the workbook could not be written: \(detail)"
        }
    }
}
