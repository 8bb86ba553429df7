import Foundation
import MIKit

/// Lays a form out on the pages of a `PDFCanvas`: header, one block per question, the
/// foreman's comments and the audit trail, a footer on every page. Each block is measured
/// first (the same code runs with `measuring` on and nothing painted) so that a block that
/// fits on a page is never split.
final class ReportComposer {
    private let form: Form
    private let folder: URL
    private let canvas: PDFCanvas
    private let images: ImageLibrary
    private let totalPages: Int?
    private let dates: DateFormatter
    private var cursor: PageCursor
    private var measuring = false

    static let indent = 16.0
    static let answerLabelWidth = 66.0
    static let thumbnailWidth = 150.0
    static let thumbnailHeight = 112.0

    /// `totalPages` is nil on the counting pass, when the footers cannot know it yet.
    init(form: Form, folder: URL, canvas: PDFCanvas, images: ImageLibrary, totalPages: Int?, timeZone: TimeZone) {
        self.form = form
        self.folder = folder
        self.canvas = canvas
        self.images = images
        self.totalPages = totalPages
        dates = DateFormatter()
        dates.locale = Locale(identifier: "en_US_POSIX")
        dates.timeZone = timeZone
        dates.dateFormat = "yyyy-MM-dd HH:mm xxx"
        cursor = PageCursor(pageWidth: canvas.width, pageHeight: canvas.height)
    }

    /// Draws the whole form and returns the number of pages.
    func compose() -> Int {
        header()
        for (index, question) in form.template.questions.enumerated() {
            questionBlock(question, number: index + 1)
        }
        foremanComments()
        auditTrail()
        footer()
        return cursor.page
    }

    // MARK: - Sections

    private func header() {
        paragraph(form.template.title, style: .title, after: 2)
        paragraph("Template \(form.template.id), version \(form.template.version)", style: .note, after: 8)
        let summary = form.summary
        let fields: [(String, String)] = [
            ("Form", form.name),
            ("Form id", form.id.uuidString.lowercased()),
            ("Technician", form.user),
            ("Created", dates.string(from: form.createdAt)),
            ("Submitted", form.submittedAt.map { dates.string(from: $0) } ?? "not submitted"),
            ("Status", "\(form.status.rawValue) — \(summary.answered) of \(summary.questions) questions answered"),
        ]
        for (label, value) in fields { field(label, value, labelWidth: 80, after: 1) }
        space(6)
        rule()
        space(10)
    }

    private func questionBlock(_ question: Question, number: Int) {
        let answer = form.answer(for: question.id)
        keepTogether {
            paragraph("\(number). \(question.text)", style: .question, after: 1)
            if let help = question.help, !help.isEmpty { paragraph(help, style: .note, indent: Self.indent, after: 1) }
            paragraph(question.typeDescription, style: .note, indent: Self.indent, after: 4)
            answerPart(question, answer.value)
            if let comment = answer.comment, !comment.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                field("Comment:", comment, valueStyle: .comment, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
            }
            if !answer.media.isEmpty { mediaPart(answer.media) }
        }
        space(12)
    }

    private func answerPart(_ question: Question, _ value: AnswerValue?) {
        switch (question.kind, value) {
        case (.table(let rows, let columns, let noCells), _):
            var cells: [[String?]] = []
            if case .table(let given)? = value { cells = given }
            table(rows: rows, columns: columns, noCells: noCells, values: cells)
            if value == nil { paragraph("no answer", style: .note, indent: Self.indent, after: 3) }
        case (_, nil):
            field("Answer:", "no answer", valueStyle: .note, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
        case (.multipleChoice(let options, _), .choices(let chosen)?):
            paragraph("Answer:", style: .label, indent: Self.indent, after: 1)
            let extra = chosen.filter { !options.contains($0) }
            for option in options + extra {
                let mark = chosen.contains(option) ? "☒" : "☐"
                paragraph("\(mark) \(option)", style: .body, indent: Self.indent + 8, after: 1)
            }
            space(2)
        case (.trueFalse, .bool(let yes)?):
            field("Answer:", yes ? "Yes" : "No", indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
        case (_, let value?):
            field("Answer:", value.display, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
        }
    }

    private func mediaPart(_ names: [String]) {
        var photos: [(name: String, image: ReportImage, bytes: Int64)] = []
        var lines: [(text: String, style: TextStyle)] = []
        for name in names {
            if let problem = SafeName.problem(name) {
                lines.append(("unsafe media name \(SafeName.printable(name)): \(problem)", .warning))
                continue
            }
            let url = folder.appendingPathComponent(name)
            let bytes: Int64
            switch Self.fileSize(url) {
            case .missing:
                lines.append(("missing: \(name)", .warning))
                continue
            case .notAFile:
                lines.append(("not a regular file: \(name)", .warning))
                continue
            case .file(let size):
                bytes = size
            }
            let size = ReportFormat.bytes(bytes)
            switch MediaKind(extension: url.pathExtension) {
            case .photo?:
                switch images.image(named: name) {
                case .success(let image): photos.append((name, image, bytes))
                case .failure(let problem): lines.append(("▣ \(name) (\(size)) — \(problem.reason)", .body))
                }
            case .video?: lines.append(("▶ \(name) (\(size), video)", .body))
            case .audio?: lines.append(("♪ \(name) (\(size), audio)", .body))
            case nil: lines.append(("\(name) (\(size))", .body))
            }
        }
        if !photos.isEmpty { thumbnails(photos) }
        for line in lines { paragraph(line.text, style: line.style, indent: Self.indent, after: 2) }
    }

    private func foremanComments() {
        section("Foreman comments", items: form.foremanComments, empty: "none") { comment in
            paragraph("\(dates.string(from: comment.at)) · \(comment.by)", style: .note, indent: Self.indent, after: 1)
            paragraph(comment.text, style: .body, indent: Self.indent, after: 5)
        }
        space(10)
    }

    private func auditTrail() {
        section("Audit trail", items: form.audit, empty: "no events") { event in
            field(dates.string(from: event.at), "\(event.by) — \(ReportFormat.describe(event))",
                  valueStyle: .cell, labelStyle: .cell, indent: Self.indent, labelWidth: 130, after: 2)
        }
    }

    /// A heading kept on the page of its first item, then the items, each kept whole.
    private func section<Item>(_ title: String, items: [Item], empty: String, item draw: (Item) -> Void) {
        keepTogether {
            paragraph(title, style: .heading, after: 4)
            if let first = items.first { draw(first) } else { paragraph(empty, style: .note, indent: Self.indent, after: 2) }
        }
        for item in items.dropFirst() { keepTogether { draw(item) } }
    }

    // MARK: - Building blocks

    /// Starts a new page before `body` when its content fits on a page but not on the rest of
    /// this one. Longer content flows, keeping at least its first lines together.
    private func keepTogether(_ body: () -> Void) {
        if !measuring {
            let height = measure(body)
            let needed = height <= cursor.pageContentHeight ? height : min(height, 72)
            if !cursor.fits(needed) && !cursor.atTop { newPage() }
        }
        body()
    }

    private func measure(_ body: () -> Void) -> Double {
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
    private func room(_ height: Double) {
        if !measuring && !cursor.fits(height) && !cursor.atTop { newPage() }
    }

    private func newPage() {
        footer()
        canvas.showPage()
        cursor.nextPage()
    }

    private func space(_ height: Double) {
        cursor.y += height
        if !measuring && cursor.y > cursor.bottom { newPage() }
    }

    private func rule() {
        room(1)
        if !measuring {
            canvas.line(from: (cursor.left, cursor.y), to: (cursor.left + cursor.width, cursor.y), gray: 0.5)
        }
        cursor.y += 1
    }

    /// Wrapped text, drawn line by line so that it can continue on the next page.
    private func paragraph(_ text: String, style: TextStyle, indent: Double = 0, after: Double) {
        guard let block = canvas.text(text, style: style, width: cursor.width - indent) else { return }
        for (index, line) in block.lines.enumerated() {
            room(line.height)
            if !measuring { canvas.draw(block, line: index, x: cursor.left + indent, y: cursor.y) }
            cursor.y += line.height
        }
        cursor.y += after
    }

    /// A label and its wrapped value beside it.
    private func field(_ label: String, _ value: String, valueStyle: TextStyle = .body, labelStyle: TextStyle = .label,
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

    /// A real table: grid lines, the column labels on top (repeated after a page break), the
    /// row labels on the left, the cells that take no value shaded grey.
    private func table(rows: [String], columns: [String], noCells: Set<Cell>, values: [[String?]]) {
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
                return value.flatMap { canvas.text($0, style: .cell, width: columnWidth - 2 * padding) }
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

    /// Photos as thumbnails in rows, each scaled to fit its box, its name and size below.
    private func thumbnails(_ photos: [(name: String, image: ReportImage, bytes: Int64)]) {
        let gap = 12.0
        let x = cursor.left + Self.indent
        let perRow = max(1, Int((cursor.width - Self.indent + gap) / (Self.thumbnailWidth + gap)))
        var start = 0
        while start < photos.count {
            let row = photos[start..<min(start + perRow, photos.count)]
            let boxes = row.map { photo -> (width: Double, height: Double) in
                let scale = min(Self.thumbnailWidth / Double(photo.image.pixelWidth),
                                Self.thumbnailHeight / Double(photo.image.pixelHeight))
                return (Double(photo.image.pixelWidth) * scale, Double(photo.image.pixelHeight) * scale)
            }
            let captions = row.map { photo in
                canvas.text("\(photo.name) (\(ReportFormat.bytes(photo.bytes)))", style: .note, width: Self.thumbnailWidth)
            }
            let imageHeight = boxes.map(\.height).max() ?? 0
            let captionHeight = captions.compactMap { $0?.height }.max() ?? 0
            let rowHeight = imageHeight + 3 + captionHeight + 8
            room(rowHeight)
            if !measuring {
                for (offset, photo) in row.enumerated() {
                    let box = boxes[offset]
                    let left = x + Double(offset) * (Self.thumbnailWidth + gap)
                    canvas.draw(photo.image, x: left, y: cursor.y, width: box.width, height: box.height)
                    canvas.strokeRectangle(x: left, y: cursor.y, width: box.width, height: box.height, gray: 0.6, lineWidth: 0.4)
                    if let caption = captions[offset] { canvas.draw(caption, x: left, y: cursor.y + imageHeight + 3) }
                }
            }
            cursor.y += rowHeight
            start += perRow
        }
    }

    /// The form and "Page N of M" at the foot of the page.
    private func footer() {
        guard !measuring else { return }
        let top = cursor.footerTop
        canvas.line(from: (cursor.left, top), to: (cursor.left + cursor.width, top), gray: 0.6, lineWidth: 0.4)
        let pages = totalPages.map(String.init) ?? "?"
        guard let pageBlock = canvas.text("Page \(cursor.page) of \(pages)", style: .footer, width: nil) else { return }
        canvas.draw(pageBlock, x: cursor.left + cursor.width - pageBlock.width, y: top + 4)
        let formText = "Form \(form.name) · \(form.id.uuidString.lowercased())"
        if let formBlock = canvas.text(formText, style: .footer, width: cursor.width - pageBlock.width - 12) {
            canvas.draw(formBlock, x: cursor.left, y: top + 4)
        }
    }

    private enum FileCheck { case missing, notAFile, file(Int64) }

    /// A media file as it is on disk. Symbolic links are not followed: media never come from
    /// outside the form's folder.
    private static func fileSize(_ url: URL) -> FileCheck {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return .missing }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else { return .notAFile }
        return .file((attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }
}

/// The photos of one report, loaded once for both passes.
final class ImageLibrary {
    private let folder: URL
    private var loaded: [String: Result<ReportImage, ImageProblem>] = [:]

    init(folder: URL) { self.folder = folder }

    func image(named name: String) -> Result<ReportImage, ImageProblem> {
        if let image = loaded[name] { return image }
        let image = ReportImage.load(folder.appendingPathComponent(name))
        loaded[name] = image
        return image
    }
}

/// How sizes and audit events read on paper.
enum ReportFormat {
    static func bytes(_ count: Int64) -> String {
        let units = ["KB", "MB", "GB", "TB"]
        guard count >= 1000 else { return "\(count) B" }
        var value = Double(count) / 1000
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
    }

    static func describe(_ event: AuditEvent) -> String {
        var parts = [event.action.rawValue]
        if let questions = event.questions, !questions.isEmpty { parts.append(questions.joined(separator: ", ")) }
        if let media = event.media { parts.append(media) }
        if let from = event.from, let to = event.to { parts.append("\(from) → \(to)") }
        else if let to = event.to { parts.append("to \(to)") }
        else if let from = event.from { parts.append("from \(from)") }
        if let note = event.note, !note.isEmpty { parts.append("“\(note)”") }
        return parts.joined(separator: " · ")
    }
}
