import Foundation

/// The columns of an export's `<template>.csv`, laid out from one template version (the
/// newest) in the order ODK Central users know:
///
/// `SubmissionDate`, then — when the template records where a form was started
/// (`captureLocation`) — `StartLocation-Latitude`, `-Longitude`, `-Altitude`, `-Accuracy`, then per question of the template, in its order, its type's columns
/// (`QuestionType.csvHeader`):
/// - multiple choice: `<id>` with the chosen options' names separated by spaces, then
///   `<id>/<name>` per option holding 1 or 0 (empty when the question has no value), as ODK
///   Central writes a select-multiple (an option given as a plain string is its own name);
/// - true/false: `true` or `false`; numbers without a trailing `.0`; short answers as typed;
/// - table: `<id>-<row label>-<column label>` per cell, row by row;
/// - date, time, date and time: ISO 8601 as stored (`2026-11-26`, `14:30`,
///   `2026-11-26T14:30:00-06:00`); range: the number;
/// - location: `<id>-Latitude`, `<id>-Longitude`, `<id>-Altitude`, `<id>-Accuracy`, ODK Central's names;
/// - `<id>-comment`;
///
/// A note takes no answer and has no column, not even a comment column.
///
/// then, when the template names a scorer, one column per key it can produce
/// (`ScoreSheet.keys(of:)`: `ipaq.walkingMET` … `ipaq.sittingMinutes`), named by the key and
/// holding the score recomputed from the form's answers (empty when the scorer gives no such
/// value for them), then `KEY` (the form id), `User`, `UserName`, `FormVersion`, `AttachmentsPresent`,
/// `AttachmentsExpected`, `ForemanComments`.
///
/// Answers are matched to the layout by question id (and table cells by their row and column
/// labels, by position when a label is not in the form's own template copy). A value that no
/// longer fits the layout is still written, never dropped: an option the template has since
/// removed stays in the joined text (it has no 0/1 column), and a value whose type changed is
/// written as text in the question's column.
///
/// Cells that take no value keep their column, always empty for forms of the layout's version:
/// the grid stays rectangular (a spreadsheet user can reshape it by position, and the header
/// names every cell of the table), and a value an older version's form holds in a cell the
/// newest version marks as taking none is still exported rather than dropped.
public struct CSVLayout: Sendable {
    /// The version the columns come from.
    public let template: Template
    /// The header row.
    public let header: [String]

    /// The questions of the main CSV: those outside every repeat (all of a flat template's).
    public let questions: [Question]
    /// One table per repeat, in the order they open: `<template>-<repeat>.csv`.
    public let repeats: [RepeatCSV]
    /// Whether the rows end with the office's review state (`ReviewState`, as ODK Central's
    /// export does): mi-server's exports, not `mi export`'s local forms.
    public let reviewStates: Bool
    /// Whether the rows end with the stored version and the one it supersedes (`Version`,
    /// `Supersedes`): mi-server's export of every version.
    public let versions: Bool

    public init(template: Template, reviewStates: Bool = false, versions: Bool = false) {
        self.template = template
        self.reviewStates = reviewStates
        self.versions = versions
        questions = template.hasRepeats ? FormInstances.questions(of: template, in: nil) : template.questions
        repeats = template.groups.filter(\.isRepeat).map { RepeatCSV(template: template, group: $0) }
        var header = ["SubmissionDate"]
        if template.captureLocation { header += Self.pointHeader(prefix: Self.startLocationPrefix) }
        for question in questions where question.type.takesAnswer {
            header += question.type.csvHeader(question: question.id)
            header.append("\(question.id)-comment")
        }
        if let scoring = template.scoring { header += ScoreSheet.keys(of: scoring) }
        header += ["KEY", "User", "UserName", "FormVersion", "AttachmentsPresent", "AttachmentsExpected", "ForemanComments"]
        if reviewStates { header.append("ReviewState") }
        if versions { header += ["Version", "Supersedes"] }
        self.header = header
    }

    /// The row of `form`, with `attachmentsPresent` of its listed media files at hand.
    public func row(for form: Form, attachmentsPresent: Int, reviewState: ReviewState? = nil, version: Int? = nil) -> [String] {
        var row: [String] = [form.submittedAt.map(Self.timestamp) ?? ""]
        row.reserveCapacity(header.count)
        if template.captureLocation { row += Self.pointCells(form.startLocation) }
        for question in questions where question.type.takesAnswer {
            let answer = form.answers[question.id]
            row += question.type.csvCells(answer?.value, question: question.id, form: form)
            row.append(answer?.comment ?? "")
        }
        if let scoring = template.scoring {
            // The layout's scorer over the form's answers: never a figure form.json carries.
            let sheet = scoring.score(form)
            row += ScoreSheet.keys(of: scoring).map { sheet[$0]?.display ?? "" }
        }
        let expected = form.answers.values.reduce(0) { $0 + $1.media.count }
        row += [form.id.description, form.user, form.userDisplayName ?? "", String(form.template.version),
                String(attachmentsPresent), String(expected), Self.foremanComments(form.foremanComments)]
        if reviewStates { row.append((reviewState ?? .received).rawValue) }
        if versions {
            let version = version ?? 1
            row += [String(version), version > 1 ? String(version - 1) : ""]
        }
        return row
    }

    /// The cells of one answer's question: its type's, then its comment. `key` is the answer's
    /// key in the form (`trees[2]/dbh` in a repeat).
    static func cells(_ question: Question, key: String, in form: Form) -> [String] {
        let answer = form.answers[key]
        return question.type.csvCells(answer?.value, question: key, form: form) + [answer?.comment ?? ""]
    }

    /// The columns of where the form was started: `StartLocation-Latitude`, ….
    public static let startLocationPrefix = "StartLocation"

    /// A point's columns as ODK Central names them: `<prefix>-Latitude`, `-Longitude`,
    /// `-Altitude`, `-Accuracy` (a location question's, and where the form was started).
    public static func pointHeader(prefix: String) -> [String] {
        ["Latitude", "Longitude", "Altitude", "Accuracy"].map { "\(prefix)-\($0)" }
    }

    /// A point's four cells under `pointHeader` (empty for an unknown altitude or accuracy, all
    /// empty for no point).
    public static func pointCells(_ point: Geopoint?) -> [String] {
        guard let point else { return ["", "", "", ""] }
        return [formatNumber(point.latitude), formatNumber(point.longitude),
                point.altitude.map(formatNumber) ?? "", point.accuracy.map(formatNumber) ?? ""]
    }

    /// A value as its CSV cell: `true`/`false`, numbers without `.0`, choices joined by ` | `.
    static func text(_ value: AnswerValue) -> String {
        switch value {
        case .text(let text): return text
        case .number(let number): return formatNumber(number)
        case .bool(let bool): return bool ? "true" : "false"
        case .choices(let labels): return labels.joined(separator: " | ")
        case .cells: return value.display
        case .location(let point): return point.typedString
        }
    }

    /// Each comment on its own line: `2026-11-23T10:15:00Z boss: Replace the seal.`
    static func foremanComments(_ comments: [ForemanComment]) -> String {
        comments.map { "\(timestamp($0.at)) \($0.by): \($0.text)" }.joined(separator: "\n")
    }

    /// `2026-11-23T06:56:03Z`: ISO 8601 in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        return (try? ListingJSON.iso8601(whole)) ?? ISO8601DateFormatter().string(from: whole)
    }
}

/// The CSV of one repeat, as ODK Central writes a repeat group: `<template>-<repeat>.csv`, one
/// row per instance (of every form, in the forms' order, each form's instances in the order
/// asked): the columns of the questions standing directly in the repeat (in groups inside it;
/// a repeat inside it has its own file) as in the main CSV, with their comments, then
/// `PARENT_KEY` — the form's `KEY` for a repeat at the top level, the parent instance's `KEY`
/// for a nested one — and `KEY`, `<form id>/<repeat>[n]` (`<form id>/trees[2]/stems[1]`).
/// Joining `PARENT_KEY` to the parent file's `KEY` gives each instance its form.
public struct RepeatCSV: Sendable {
    public let group: QuestionGroup
    /// `<template>-<repeat>.csv`.
    public let fileName: String
    public let questions: [Question]
    public let header: [String]

    init(template: Template, group: QuestionGroup) {
        self.group = group
        fileName = "\(template.id)-\(group.id).csv"
        questions = FormInstances.questions(of: template, in: group.id)
        var header: [String] = []
        for question in questions where question.type.takesAnswer {
            header += question.type.csvHeader(question: question.id)
            header.append("\(question.id)-comment")
        }
        self.header = header + ["PARENT_KEY", "KEY"]
    }

    /// The row of one instance of `form`.
    public func row(for form: Form, instance: FormInstances.Instance) -> [String] {
        var row: [String] = []
        row.reserveCapacity(header.count)
        for question in questions where question.type.takesAnswer {
            row += CSVLayout.cells(question, key: AnswerPath(question.id, in: instance.steps).description, in: form)
        }
        let id = form.id.description
        return row + [instance.parentKey(form: id), instance.key(form: id)]
    }
}

/// RFC 4180 text: fields separated by commas, records ended by CRLF, a field quoted when it
/// holds a comma, a quote, CR or LF (quotes doubled inside).
///
/// Spreadsheet formulas: a field that starts with `=`, `+`, `-`, `@`, a tab or CR is run as a
/// formula by Excel and LibreOffice when the file is opened (CSV injection: `=HYPERLINK(…)`,
/// DDE). ODK Central writes such fields as they are; MI prefixes them with `'`, so both
/// programs show them as text, because this CSV is made to be opened in a spreadsheet by office
/// staff and its text comes from the field (the apostrophe shows, which is the price of never
/// running a technician's text as a formula). Numbers are never touched (`-3.5` stays a
/// number); scripts that need every byte as typed use the `jsonl` export.
public enum CSVText {
    /// The UTF-8 byte-order mark, so Excel reads the file as UTF-8 (`Ñuñoa`, not `Ã‘uÃ±oa`).
    public static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// One record, CRLF included, appended to `out`.
    public static func append(_ fields: [String], to out: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendField(field, to: &out)
        }
        out.append(0x0D)
        out.append(0x0A)
    }

    /// One record as bytes.
    public static func record(_ fields: [String]) -> [UInt8] {
        var out: [UInt8] = []
        append(fields, to: &out)
        return out
    }

    /// The field as a spreadsheet should see it: prefixed with `'` when it would start a formula.
    public static func guarded(_ field: String) -> String {
        guard let first = field.utf8.first else { return field }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "@"), 0x09, 0x0D:
            return "'" + field
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            return Double(field) == nil ? "'" + field : field
        default:
            return field
        }
    }

    static func appendField(_ raw: String, to out: inout [UInt8]) {
        let field = guarded(raw)
        let utf8 = field.utf8
        let needsQuotes = utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
        guard needsQuotes else {
            out.append(contentsOf: utf8)
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }
}
