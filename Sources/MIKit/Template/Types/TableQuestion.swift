import Foundation

/// `table`: a grid of labelled rows and columns, one value (text or a number) per cell except
/// the cells listed in `noCells`, which take none. `mi fill` asks it cell by cell and keeps the
/// cells typed so far as a draft.
public struct TableQuestion: QuestionType {
    public var rows: [String]
    public var columns: [String]
    /// The (row, column) pairs, from 0, that take no value.
    public var noCells: Set<Cell>

    public init(rows: [String], columns: [String], noCells: Set<Cell>) {
        self.rows = rows
        self.columns = columns
        self.noCells = noCells
    }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("table")
    public static let displayName = "Table"
    public static let keys: [TemplateKeys.Key] = [.rows, .columns, .noCells]
    public static let editorFields = [
        EditorField(.rows, .rows, "Rows"), EditorField(.columns, .columns, "Columns"), EditorField(.noCells, .cells, "Click a cell: no value"),
    ]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        let rows = validator.strings(object, .rows, question: label)
        let columns = validator.strings(object, .columns, question: label)
        if rows?.isEmpty == true { validator.problem(label, .rows, "a table needs at least one row") }
        if columns?.isEmpty == true { validator.problem(label, .columns, "a table needs at least one column") }
        guard let rows, let columns, !rows.isEmpty, !columns.isEmpty else { return nil }
        var noCells: Set<Cell> = []
        switch object[validator.keys[.noCells]] {
        case nil, .null?: break
        case .array(let pairs)?:
            for (index, pair) in pairs.enumerated() {
                guard let values = pair.arrayValue, values.count == 2,
                      let row = values[0].integerValue, let column = values[1].integerValue else {
                    validator.problem(label, .noCells, "entry \(index + 1) must be a [row, column] pair of whole numbers")
                    continue
                }
                guard rows.indices.contains(row), columns.indices.contains(column) else {
                    validator.problem(label, .noCells, "[\(row), \(column)] is outside the \(rows.count) × \(columns.count) table (rows and columns count from 0)")
                    continue
                }
                noCells.insert(Cell(row: row, column: column))
            }
            if noCells.count == rows.count * columns.count {
                validator.problem(label, .noCells, "every cell takes no value, so the table cannot be answered")
            }
        case let value?: validator.problem(label, .noCells, "expected an array of [row, column] pairs, found \(value.kindDescription)")
        }
        return Self(rows: rows, columns: columns, noCells: noCells)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        object[keys[.rows]] = .array(rows.map(JSONValue.string))
        object[keys[.columns]] = .array(columns.map(JSONValue.string))
        object[keys[.noCells]] = .array(noCells.sorted().map { .array([.number(Double($0.row)), .number(Double($0.column))]) })
    }

    public var typeDescription: String { "table, \(rows.count) × \(columns.count)" }

    // MARK: Answers

    /// One JSON array of rows on the line.
    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let json = try? JSONValue.parse(Data(trimmed.utf8)) else {
            throw rules.refuse("a table answer is one JSON array of rows, e.g. '[[\"1\",null],[\"2\",\"3\"]]' (null in cells that take no value)")
        }
        return try value(fromJSON: json, rules: rules)
    }

    /// An array of rows, each an array of cells: text, a number, true/false or null.
    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        guard let rowValues = json.arrayValue else {
            throw rules.refuse("expected an array of \(rows.count) rows, found \(json.kindDescription)")
        }
        guard rowValues.count == rows.count else {
            throw rules.refuse("expected \(rows.count) rows, found \(rowValues.count)")
        }
        var table: [[String?]] = []
        for (r, rowValue) in rowValues.enumerated() {
            guard let cells = rowValue.arrayValue, cells.count == columns.count else {
                throw rules.refuse("row \(r) (\(rows[r])) must be an array of \(columns.count) cells")
            }
            table.append(try cells.enumerated().map { c, cell -> String? in
                switch cell {
                case .null: return nil
                case .string(let string): return string
                case .number(let number): return formatNumber(number)
                case .bool(let bool): return bool ? "true" : "false"
                case .array, .object:
                    throw rules.refuse("cell [\(r), \(c)] (\(rows[r]) / \(columns[c])) must be text or a number, found \(cell.kindDescription)")
                }
            })
        }
        return try rules.checkTable(table)
    }

    // MARK: mi fill

    public var grid: GridLayout? { layout }

    var layout: GridLayout { GridLayout(rows: rows, columns: columns, noCells: noCells) }

    // MARK: Simulation, statistics, exports

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        .array(rows.indices.map { r in
            .array(columns.indices.map { c in
                noCells.contains(Cell(row: r, column: c)) ? .null : .number((generator.unit() * 1000).rounded() / 10)
            })
        })
    }

    public var tally: TallyShape { .grid(layout) }

    /// `<id>-<row label>-<column label>` per cell, row by row.
    public func csvHeader(question id: String) -> [String] {
        rows.flatMap { row in columns.map { "\(id)-\(row)-\($0)" } }
    }

    /// The cells in the layout's order, found in the form by row and column label (by position
    /// when a label is not in the form's own template copy).
    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] {
        let count = rows.count * columns.count
        guard let value else { return Array(repeating: "", count: count) }
        guard case .cells(let grid) = value else {
            // A value of another type (the question changed type): kept, in the first cell.
            return [CSVLayout.text(value)] + Array(repeating: "", count: max(count - 1, 0))
        }
        var formRows = rows, formColumns = columns
        if let own = form.template.question(id: AnswerPath(parsing: id)?.name ?? id)?.kind.type.grid {
            formRows = own.rows
            formColumns = own.columns
        }
        var cells: [String] = []
        cells.reserveCapacity(count)
        for (rowIndex, row) in rows.enumerated() {
            let r = formRows.firstIndex(of: row) ?? rowIndex
            for (columnIndex, column) in columns.enumerated() {
                let c = formColumns.firstIndex(of: column) ?? columnIndex
                cells.append(r < grid.count && c < grid[r].count ? grid[r][c] ?? "" : "")
            }
        }
        return cells
    }

    // MARK: Presentation

    /// The grid, empty when unanswered; a value of another type as text.
    public func presentation(of value: AnswerValue?) -> AnswerShape? {
        switch value {
        case nil: return .grid(layout, cells: [])
        case .cells(let cells)?: return .grid(layout, cells: cells)
        case let other?: return .text(other.display)
        }
    }
}

extension TemplateKeys.Key {
    public static let table = TableQuestion.typeKey
    public static let rows = TemplateKeys.Key("rows")
    public static let columns = TemplateKeys.Key("columns")
    public static let noCells = TemplateKeys.Key("noCells")
}

extension Question.Kind {
    public static func table(rows: [String], columns: [String], noCells: Set<Cell>) -> Self {
        Self(TableQuestion(rows: rows, columns: columns, noCells: noCells))
    }
}
