import Foundation
import MIKit

/// One sheet of an XLSForm (or a CSV of choices) read as a table: its first row with values is
/// the header, whose cells are matched without regard to case, stray spaces or the legacy
/// spellings (`list name`, `label:English`); every later row with a value is a record.
struct XLSFormTable {
    /// A header cell: the column's canonical name (`constraint_message`), its language when it is
    /// one of a translatable column's (`Español (es)`), the header as written, and where it is.
    struct Column {
        var name: String
        var language: String?
        var header: String
        var index: Int
    }

    struct Record {
        var row: Int
        /// The cells with a value, in column order.
        var cells: [(column: Int, text: String)]

        /// The text in `column`, nil when that cell is empty.
        subscript(column: Int) -> String? {
            let index = cells.lowerBound(of: column) { $0.column }
            return index < cells.count && cells[index].column == column ? cells[index].text : nil
        }
    }

    let sheet: String
    let columns: [Column]
    /// The columns of each canonical name, in column order (the importer asks for them by name
    /// for every row).
    private let columnsByName: [String: [Column]]
    let records: [Record]
    let headerRow: Int

    /// `rows` in order, each with its cells in column order.
    init<Rows: Sequence, Cells: Sequence>(sheet: String, rows: Rows)
    where Rows.Element == (number: Int, cells: Cells), Cells.Element == (column: Int, text: String) {
        self.sheet = sheet
        var columns: [Column] = []
        var records: [Record] = []
        var headerRow = 0
        for row in rows {
            // Cells are kept trimmed (pyxform strips them too); a cell of white space is empty.
            let cells = row.cells.compactMap { cell -> (column: Int, text: String)? in
                let text = cell.text.trimmed
                return text.isEmpty ? nil : (cell.column, text)
            }
            guard !cells.isEmpty else { continue }
            if headerRow == 0 {
                headerRow = row.number
                columns = cells.map { Self.column(header: $0.text, index: $0.column) }
                continue
            }
            records.append(Record(row: row.number, cells: cells))
        }
        self.columns = columns
        columnsByName = Dictionary(grouping: columns, by: \.name)
        self.records = records
        self.headerRow = headerRow
    }

    init(_ sheet: XLSXSheet) {
        // Each row's cells are trimmed as they are read, without an array of them in between.
        self.init(sheet: sheet.name, rows: sheet.rows.lazy.map { row in
            (number: row.number, cells: row.cells.lazy.map { (column: $0.column, text: $0.value.text) })
        })
    }

    /// `Label::Español (es)` → (`label`, `Español (es)`); ` Constraint Message ` → `constraint_message`;
    /// `label:English` (the legacy single colon) → (`label`, `English`).
    static func column(header: String, index: Int) -> Column {
        let written = header.trimmed
        var base = written
        var language: String?
        if let range = written.range(of: "::") {
            base = String(written[..<range.lowerBound])
            var rest = String(written[range.upperBound...])
            if base.lowercased().trimmed == "media" {
                // media::image::English
                if let inner = rest.range(of: "::") {
                    language = String(rest[inner.upperBound...])
                    rest = String(rest[..<inner.lowerBound])
                }
                base = "media::" + rest
            } else {
                language = rest
            }
        } else if let colon = written.firstIndex(of: ":"), aliases[canonical(written)] == nil {
            let head = canonical(String(written[..<colon]))
            if XLSFormVocabulary.translatable.contains(head) || head == "media" {
                base = String(written[..<colon])
                language = String(written[written.index(after: colon)...])
            }
        }
        var name = canonical(base)
        if let alias = aliases[name] { name = alias }
        let trimmedLanguage = language?.trimmed
        return Column(name: name, language: trimmedLanguage?.isEmpty == false ? trimmedLanguage : nil, header: written, index: index)
    }

    private static var aliases: [String: String] { XLSFormVocabulary.aliases }

    /// Lower case, runs of white space as one `_` (`Constraint  Message` → `constraint_message`),
    /// except around `::` and `:`.
    static func canonical(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: "_")
    }

    /// The column of that canonical name: the one without a language, else `language`'s.
    func column(_ name: String, language: String? = nil) -> Column? {
        let candidates = columns(named: name)
        if let language, let match = candidates.first(where: { $0.language == language }) { return match }
        return candidates.first { $0.language == nil } ?? (language == nil ? candidates.first : nil)
    }

    /// The columns of that canonical name, in column order.
    func columns(named name: String) -> [Column] { columnsByName[name] ?? [] }

    /// The languages the label columns are written in, in column order; a column without one
    /// counts as the nil language. (Other texts follow the labels' language, falling back to
    /// their column without a language.)
    var languages: [String?] {
        var seen: [String?] = []
        for column in columns where column.name == "label" && !seen.contains(column.language) {
            seen.append(column.language)
        }
        return seen
    }

    /// The trimmed text of `record`'s cell in `column`, nil when empty.
    func text(_ record: Record, _ column: Column?) -> String? {
        guard let column, let text = record[column.index] else { return nil }
        return text
    }

    func problem(_ record: Record?, _ column: Column?, _ message: String) -> XLSFormProblem {
        XLSFormProblem(sheet: sheet, row: record?.row, column: column?.header,
                       columnLetter: column.map { XLSXCellReference.columnLetters($0.index) }, message: message)
    }

    /// A problem naming a column by its canonical name even when the sheet lacks it.
    func problem(_ record: Record?, named name: String, _ message: String) -> XLSFormProblem {
        if let column = column(name) { return problem(record, column, message) }
        return XLSFormProblem(sheet: sheet, row: record?.row, column: name, message: message)
    }
}

/// A CSV of choices (`select_one_from_file cities.csv`): RFC 4180, comma-separated, a header row
/// with `name` and `label`, quoted fields with `""` for a quote; a UTF-8 byte-order mark is skipped.
enum ChoicesCSV {
    static func rows(_ data: Data, name: String) -> XLSFormTable {
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var rows: [(number: Int, cells: [(column: Int, text: String)])] = []
        var field = ""
        var cells: [(column: Int, text: String)] = []
        var inQuotes = false
        var characters = Array(text.unicodeScalars)
        characters.append("\n")
        var index = 0
        var lineNumber = 1
        func endRow() {
            cells.append((cells.count + 1, field))
            field = ""
            rows.append((lineNumber, cells))
            cells = []
            lineNumber += 1
        }
        while index < characters.count {
            let c = characters[index]
            if inQuotes {
                if c == "\"" {
                    if index + 1 < characters.count, characters[index + 1] == "\"" { field.unicodeScalars.append("\""); index += 1 } else { inQuotes = false }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" && field.isEmpty {
                inQuotes = true
            } else if c == "," {
                cells.append((cells.count + 1, field))
                field = ""
            } else if c == "\r" {
                if index + 1 < characters.count, characters[index + 1] == "\n" { index += 1 }
                endRow()
            } else if c == "\n" {
                endRow()
            } else {
                field.unicodeScalars.append(c)
            }
            index += 1
        }
        return XLSFormTable(sheet: name, rows: rows)
    }
}
