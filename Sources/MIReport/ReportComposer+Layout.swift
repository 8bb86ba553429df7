import Foundation

/// Page flow: blocks kept whole, page breaks, spacing, wrapped paragraphs and labelled fields.
/// Every block runs twice: measured (nothing painted), then drawn.
extension ReportComposer {
    /// Starts a new page before `body` when its content fits on a page but not on the rest of
    /// this one. Longer content flows, keeping at least its first lines together.
    func keepTogether(_ body: () -> Void) {
        if !measuring {
            let height = measure(body)
            let needed = height <= cursor.pageContentHeight ? height : min(height, 72)
            if !cursor.fits(needed) && !cursor.atTop { newPage() }
        }
        body()
    }

    func measure(_ body: () -> Void) -> Double {
        let saved = cursor
        let wasMeasuring = measuring
        measuring = true
        cursor = cursor.measuring()
        body()
        let height = cursor.y
        cursor = saved
        measuring = wasMeasuring
        return height
    }

    /// Breaks the page unless `height` fits below the cursor.
    func room(_ height: Double) {
        if !measuring && !cursor.fits(height) && !cursor.atTop { newPage() }
    }

    func newPage() {
        footer()
        canvas.showPage()
        cursor.nextPage()
    }

    func space(_ height: Double) {
        cursor.y += height
        if !measuring && cursor.y > cursor.bottom { newPage() }
    }

    func rule() {
        room(1)
        if !measuring {
            canvas.line(from: (cursor.left, cursor.y), to: (cursor.left + cursor.width, cursor.y), gray: 0.5)
        }
        cursor.y += 1
    }

    /// Wrapped text, drawn line by line so that it can continue on the next page.
    func paragraph(_ text: String, style: TextStyle, indent: Double = 0, after: Double) {
        guard let block = canvas.text(text, style: style, width: cursor.width - indent) else { return }
        for (index, line) in block.lines.enumerated() {
            room(line.height)
            if !measuring { canvas.draw(block, line: index, x: cursor.left + indent, y: cursor.y) }
            cursor.y += line.height
        }
        cursor.y += after
    }

    /// A label and its wrapped value beside it.
    func field(_ label: String, _ value: String, valueStyle: TextStyle = .body, labelStyle: TextStyle = .label,
                       indent: Double = 0, labelWidth: Double, after: Double) {
        let valueWidth = cursor.width - indent - labelWidth
        guard let labelBlock = canvas.text(label, style: labelStyle, width: labelWidth - 4),
              let valueBlock = canvas.text(value, style: valueStyle, width: valueWidth) else { return }
        for (index, line) in valueBlock.lines.enumerated() {
            let height = index == 0 ? max(line.height, labelBlock.height) : line.height
            room(height)
            if !measuring {
                if index == 0 { canvas.draw(labelBlock, x: cursor.left + indent, y: cursor.y) }
                canvas.draw(valueBlock, line: index, x: cursor.left + indent + labelWidth, y: cursor.y)
            }
            cursor.y += height
        }
        cursor.y += after
    }
}
