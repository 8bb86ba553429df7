import Foundation
import MIKit

/// Lays a form out on the pages of a `PDFCanvas`: header, one block per question, the
/// foreman's comments and the audit trail, a footer on every page. Each block is measured
/// first (the same code runs with `measuring` on and nothing painted) so that a block that
/// fits on a page is never split. This file holds the sections; page flow (`+Layout`),
/// tables (`+Table`) and media (`+Media`) are extensions in their own files.
final class ReportComposer {
    let form: Form
    let folder: URL
    let canvas: PDFCanvas
    let images: ImageLibrary
    /// The pictures the template's questions show, when their folder is known.
    let pictures: ImageLibrary?
    private let totalPages: Int?
    let dates: DateFormatter
    var cursor: PageCursor
    var measuring = false

    static let indent = 16.0
    static let answerLabelWidth = 66.0
    static let thumbnailWidth = 150.0
    static let thumbnailHeight = 112.0

    /// `totalPages` is nil on the counting pass, when the footers cannot know it yet.
    init(form: Form, folder: URL, canvas: PDFCanvas, images: ImageLibrary, pictures: ImageLibrary?, totalPages: Int?, timeZone: TimeZone) {
        // Written in the form's language (its template's texts translated; the answers the same).
        self.form = form.shown()
        self.folder = folder
        self.canvas = canvas
        self.images = images
        self.pictures = pictures
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
        consentSection()
        let logic = FormLogic(template: form.template)
        nodes(logic.layout(of: form), logic: logic)
        scoresSection()
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
        var fields: [(String, String)] = [
            ("Form", form.name),
            ("Form id", form.id.description),
            ("Technician", form.technicianLabel),
            ("Created", dates.string(from: form.createdAt)),
            ("Submitted", form.submittedAt.map { dates.string(from: $0) } ?? "not submitted"),
            ("Status", "\(form.status.rawValue) — \(summary.answered) of \(summary.questions) questions answered"),
        ]
        if let point = form.startLocation {
            fields.append(("Started at", Self.coordinates(point)))
        } else if form.template.captureLocation {
            fields.append(("Started at", "no location recorded (see the audit trail)"))
        }
        for (label, value) in fields { field(label, value, labelWidth: 80, after: 1) }
        space(6)
        rule()
        space(10)
    }

    func questionBlock(_ question: Question, number: Int, key: String, relevant: Bool) {
        let answer = form.answer(for: key)
        keepTogether {
            paragraph("\(number). \(question.text)", style: .question, after: 1)
            if let help = question.help, !help.isEmpty { paragraph(help, style: .note, indent: Self.indent, after: 1) }
            if let picture = question.image { questionPicture(picture) }
            paragraph(question.typeDescription, style: .note, indent: Self.indent, after: 4)
            guard relevant else {
                field("Answer:", Self.notRelevant, valueStyle: .note, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
                return
            }
            answerPart(question, answer)
            if let comment = answer.comment, !comment.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                field("Comment:", comment, valueStyle: .comment, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
            }
            if !answer.media.isEmpty { mediaPart(answer.media) }
        }
        space(12)
    }

    /// The answer in its type's shape (`QuestionType.presentation`): a grid is drawn even
    /// empty, options with a box each, yes/no in words, anything else as its text.
    private func answerPart(_ question: Question, _ answer: Answer) {
        let value = answer.value
        let shape = question.type.presentation(of: answer)
        // A note is its text, already drawn: no answer line.
        if case .note? = shape { return }
        if case .media(let kind, let names)? = shape {
            // The files themselves follow as the question's media (photos as thumbnails).
            field("Answer:", "\(kind.attached(names.count)) (below)", indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
            return
        }
        if case .grid(let grid, let cells)? = shape {
            table(rows: grid.rows, columns: grid.columns, noCells: grid.noCells, values: cells)
            if value == nil { paragraph("no answer", style: .note, indent: Self.indent, after: 3) }
            return
        }
        guard value != nil, let shape else {
            field("Answer:", "no answer", valueStyle: .note, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
            return
        }
        switch shape {
        case .choices(let list):
            paragraph("Answer:", style: .label, indent: Self.indent, after: 1)
            for option in list.options + list.extra {
                let mark = list.chosen.contains(option) ? "☒" : "☐"
                paragraph("\(mark) \(option)", style: .body, indent: Self.indent + 8, after: 1)
            }
            space(2)
        case .yesNo(let yes):
            field("Answer:", yes ? "Yes" : "No", indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
        case .text(let text):
            field("Answer:", text, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
        case .location(let point):
            field("Answer:", Self.coordinates(point), indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 1)
            if let altitude = point.altitude {
                field("Altitude:", "\(formatNumber(altitude)) m", indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 1)
            }
            if let accuracy = point.accuracy {
                field("Accuracy:", "±\(formatNumber(accuracy)) m", indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 1)
            }
            space(2)
        case .grid, .note, .media:
            break
        }
    }

    /// `19.4326° N, 99.1332° W (19.4326, -99.1332)`: readable, and the decimal pair a map takes.
    static func coordinates(_ point: Geopoint) -> String {
        let latitude = "\(formatNumber(abs(point.latitude)))° \(point.latitude < 0 ? "S" : "N")"
        let longitude = "\(formatNumber(abs(point.longitude)))° \(point.longitude < 0 ? "W" : "E")"
        return "\(latitude), \(longitude) (\(formatNumber(point.latitude)), \(formatNumber(point.longitude)))"
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
            field(dates.string(from: event.at), event.sentence,
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

    /// The form and "Page N of M" at the foot of the page.
    func footer() {
        guard !measuring else { return }
        let top = cursor.footerTop
        canvas.line(from: (cursor.pageLeft, top), to: (cursor.pageLeft + cursor.fullWidth, top), gray: 0.6, lineWidth: 0.4)
        let pages = totalPages.map(String.init) ?? "?"
        guard let pageBlock = canvas.text("Page \(cursor.page) of \(pages)", style: .footer, width: nil) else { return }
        canvas.draw(pageBlock, x: cursor.pageLeft + cursor.fullWidth - pageBlock.width, y: top + 4)
        let formText = "Form \(form.name) · \(form.id.description)"
        if let formBlock = canvas.text(formText, style: .footer, width: cursor.fullWidth - pageBlock.width - 12) {
            canvas.draw(formBlock, x: cursor.pageLeft, y: top + 4)
        }
    }
}
