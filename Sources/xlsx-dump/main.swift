// xlsx-dump: prints what MIXLSForm reads from an .xlsx workbook, as JSON — for looking at a
// spreadsheet someone sent, for the tests (compared with openpyxl's reading) and for
// scripts/bench-xlsx.sh. Not installed; a development tool.
//
//   xlsx-dump FILE.xlsx                 {"date1904", "sheets": [{"name", "hidden", "merged", "cells": [[row, column, kind, value]]}]}
//   xlsx-dump --bench RUNS FILE.xlsx    reads FILE RUNS times: {"median": seconds, "cells": count}
//   xlsx-dump --xlsform RUNS FILE.xlsx  imports FILE as an XLSForm RUNS times (scripts/bench-xlsform.sh):
//                                       {"median": seconds, "questions": count}
//
// Cell kinds: s string, n number, b boolean, d date (ISO 8601), e error. A workbook MI cannot
// read prints its one-line reason on standard error and exits 1.
import Foundation
import MIXLSForm

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("xlsx-dump: \(message)\n".utf8))
    exit(1)
}

func json(_ workbook: XLSXWorkbook) -> [String: Any] {
    let sheets: [[String: Any]] = workbook.sheets.map { sheet in
        let cells: [[Any]] = sheet.rows.flatMap { row in
            row.cells.map { cell -> [Any] in
                switch cell.value {
                case .string(let text): return [row.number, cell.column, "s", text]
                case .number(let number): return [row.number, cell.column, "n", number]
                case .bool(let bool): return [row.number, cell.column, "b", bool]
                case .date(let date): return [row.number, cell.column, "d", date.iso8601]
                case .error(let error): return [row.number, cell.column, "e", error]
                }
            }
        }
        return ["name": sheet.name, "hidden": sheet.isHidden, "merged": sheet.mergedRanges.map(\.description).sorted(), "cells": cells]
    }
    return ["date1904": workbook.uses1904DateSystem, "sheets": sheets]
}

var arguments = Array(CommandLine.arguments.dropFirst())
var runs = 0
var xlsform = false
if arguments.first == "--bench" || arguments.first == "--xlsform" {
    guard arguments.count == 3, let count = Int(arguments[1]), count > 0 else { fail("usage: xlsx-dump --bench|--xlsform RUNS FILE.xlsx") }
    runs = count
    xlsform = arguments.first == "--xlsform"
    arguments.removeFirst(2)
}
guard arguments.count == 1 else { fail("usage: xlsx-dump [--bench RUNS] FILE.xlsx") }
let url = URL(fileURLWithPath: arguments[0])

do {
    if xlsform {
        var times: [Double] = []
        var questions = 0
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let started = clock.now
            let imported = try XLSForm.read(contentsOf: url)
            questions = imported.template.questions.count
            let elapsed = clock.now - started
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        times.sort()
        let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        print(#"{"median": \#(median), "questions": \#(questions)}"#)
    } else if runs > 0 {
        var times: [Double] = []
        var cells = 0
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let started = clock.now
            let workbook = try XLSXWorkbook(contentsOf: url)
            cells = workbook.sheets.reduce(0) { $0 + $1.rows.reduce(0) { $0 + $1.cells.count } }
            let elapsed = clock.now - started
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        times.sort()
        let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        print(#"{"median": \#(median), "cells": \#(cells)}"#)
    } else {
        let workbook = try XLSXWorkbook(contentsOf: url)
        let data = try JSONSerialization.data(withJSONObject: json(workbook), options: [.sortedKeys])
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
} catch {
    fail(error.localizedDescription)
}
