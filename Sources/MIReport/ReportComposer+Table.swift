import Foundation
import MIKit

/// Table questions, and repeats of simple questions, drawn as tables.
extension ReportComposer {
    /// A real table: grid lines, the column labels on top (repeated after a page break), the
    /// row labels on the left, the cells that take no value shaded grey; the `muted` cells'
    /// text (a repeat's "not relevant", "no answer") grey on a light shade.
    func table(rows: [String], columns: [String], noCells: Set<Cell>, values: [[String?]], muted: Set<Cell> = []) {
        let padding = 3.0
        let x = cursor.left + Self.indent
        let total = cursor.width - Self.indent
        let widestLabel = rows.compactMap { canvas.text($0, style: .cellHeader, width: nil)?.width }.max() ?? 0
        let headerWidth = min(total * 0.35, max(48, widestLabel + 2 * padding + 1))
        let columnWidth = (total - headerWidth) / Double(max(1, columns.count))
        let columnBlocks = columns.map { canvas.text($0, style: .cellHeader, width: columnWidth - 2 * padding) }
        let headerHeight = (columnBlocks.compactMap { $0?.height }.max() ?? 10) + 2 * padding

        func columnX(_ column: Int) -> Double { x + headerWidth + Double(column) * columnWidth }

        func drawHeaderRow() {
            if !measuring {
                canvas.fill(x: x, y: cursor.y, width: total, height: headerHeight, gray: 0.93)
                canvas.strokeRectangle(x: x, y: cursor.y, width: headerWidth, height: headerHeight)
                for (column, block) in columnBlocks.enumerated() {
                    canvas.strokeRectangle(x: columnX(column), y: cursor.y, width: columnWidth, height: headerHeight)
                    if let block { canvas.draw(block, x: columnX(column) + padding, y: cursor.y + padding) }
                }
            }
            cursor.y += headerHeight
        }

        var headerDrawn = false
        for (row, label) in rows.enumerated() {
            let labelBlock = canvas.text(label, style: .cellHeader, width: headerWidth - 2 * padding)
            let cellBlocks: [TextBlock?] = columns.indices.map { column in
                guard !noCells.contains(Cell(row: row, column: column)) else { return nil }
                let value = values.indices.contains(row) && values[row].indices.contains(column) ? values[row][column] : nil
                let style = muted.contains(Cell(row: row, column: column)) ? TextStyle.mutedCell : .cell
                return value.flatMap { canvas.text($0, style: style, width: columnWidth - 2 * padding) }
            }
            let contentHeight = ([labelBlock?.height ?? 0] + cellBlocks.map { $0?.height ?? 0 }).max() ?? 0
            let rowHeight = max(contentHeight, 10) + 2 * padding
            if !headerDrawn {
                room(headerHeight + rowHeight)
                drawHeaderRow()
                headerDrawn = true
            } else if !measuring && !cursor.fits(rowHeight) {
                newPage()
                drawHeaderRow()
            }
            if !measuring {
                canvas.fill(x: x, y: cursor.y, width: headerWidth, height: rowHeight, gray: 0.93)
                canvas.strokeRectangle(x: x, y: cursor.y, width: headerWidth, height: rowHeight)
                if let labelBlock { canvas.draw(labelBlock, x: x + padding, y: cursor.y + padding) }
                for column in columns.indices {
                    let cellX = columnX(column)
                    if noCells.contains(Cell(row: row, column: column)) {
                        canvas.fill(x: cellX, y: cursor.y, width: columnWidth, height: rowHeight, gray: 0.72)
                    } else if muted.contains(Cell(row: row, column: column)) {
                        canvas.fill(x: cellX, y: cursor.y, width: columnWidth, height: rowHeight, gray: 0.96)
                    }
                    canvas.strokeRectangle(x: cellX, y: cursor.y, width: columnWidth, height: rowHeight)
                    if let block = cellBlocks[column] { canvas.draw(block, x: cellX + padding, y: cursor.y + padding) }
                }
            }
            cursor.y += rowHeight
        }
        if !headerDrawn {
            room(headerHeight)
            drawHeaderRow()
        }
        cursor.y += 6
    }
}
