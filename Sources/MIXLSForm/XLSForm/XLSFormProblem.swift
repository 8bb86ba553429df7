import Foundation
import MIKit

/// One thing wrong with (or worth knowing about) an XLSForm, pointing at the cell: the sheet as
/// the workbook names it, the row as the spreadsheet numbers it, the column by its header and
/// letter; then what is wrong and what to do.
public struct XLSFormProblem: Sendable, Equatable, CustomStringConvertible {
    /// The sheet (`survey`, `choices`, `settings`) or the CSV file (`cities.csv`); nil for the workbook itself.
    public var sheet: String?
    public var row: Int?
    /// The column's header as written (`relevant`); nil for the whole row.
    public var column: String?
    /// The column's letter (`D`), when the column is in the sheet.
    public var columnLetter: String?
    public var message: String

    public init(sheet: String?, row: Int? = nil, column: String? = nil, columnLetter: String? = nil, message: String) {
        self.sheet = sheet
        self.row = row
        self.column = column
        self.columnLetter = columnLetter
        self.message = message
    }

    /// `sheet survey, row 12, column relevant (D): …`.
    public var description: String {
        var parts: [String] = []
        if let sheet { parts.append("sheet \(DisplayText.escaped(sheet))") }
        if let row { parts.append("row \(row)") }
        if let column {
            parts.append("column \(DisplayText.escaped(column))" + (columnLetter.map { " (\($0))" } ?? ""))
        }
        let message = DisplayText.escaped(self.message)
        return parts.isEmpty ? message : parts.joined(separator: ", ") + ": " + message
    }
}

/// An XLSForm MI refuses, with every problem found (each naming its cell). Nothing of it is
/// imported: the caller installs the template only when there is no error.
public struct XLSFormError: ClassifiedError, Sendable, Equatable {
    /// The file's name, as given.
    public var file: String
    public var problems: [XLSFormProblem]

    public init(file: String, problems: [XLSFormProblem]) {
        self.file = file
        self.problems = problems
    }

    public var failureClass: FailureClass { .badData }
    public var code: String { "invalid-xlsform" }

    public var errorDescription: String? {
        let name = DisplayText.escaped(file)
        if problems.count == 1, let only = problems.first {
            return "\(name) cannot be imported: \(only) — nothing was imported"
        }
        return "\(name) cannot be imported, \(problems.count) problems — nothing was imported:\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// A template read from an XLSForm, with the warnings about what it holds that MI takes but does
/// not honour (an appearance MI does not draw).
public struct XLSFormImport: Sendable {
    public var template: Template
    public var warnings: [XLSFormProblem]
}
