import Foundation

/// The one rule for text a person gives a form — short answers, table cells, comments,
/// foreman comments, return notes and names: no control characters. ESC and the rest of C0
/// (U+0000–U+001F, tab included), DEL (U+007F) and C1 (U+0080–U+009F, e.g. U+009B, a one-byte
/// CSI) could clear or recolour the terminal of whoever prints the form later, and arrow keys
/// typed at a prompt without line editing arrive as such bytes. Only a newline is allowed, in
/// the texts that may hold several lines (comments and notes). The CLI, the server and the web
/// pages apply this same rule.
public enum TextRules {
    /// Whether `scalar` is a control character (C0, DEL or C1).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// False when `text` certainly holds no control character, looking at its UTF-8 alone: no C0
    /// byte, no DEL and no 0xC2 (the lead byte of every C1 character), as most texts.
    public static func mayHoldControl(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 } }
    }

    /// Throws when `text` holds a control character; `field` names the text in the message
    /// ("comment of question q3"), `allowNewlines` lets "\n" through.
    public static func check(_ text: String, field: String, allowNewlines: Bool = false) throws(TextRuleError) {
        guard mayHoldControl(text) else { return }
        for (offset, scalar) in text.unicodeScalars.enumerated() where isControl(scalar) {
            if allowNewlines && scalar == "\n" { continue }
            throw .controlCharacter(field: field, scalar: scalar.value, position: offset + 1)
        }
    }

    /// Checks every text of an answer value (a short answer, the chosen options, each table cell).
    public static func check(_ value: AnswerValue, field: String) throws(TextRuleError) {
        switch value {
        case .text(let text): try check(text, field: field)
        case .choices(let choices): for choice in choices { try check(choice, field: field) }
        case .cells(let rows):
            for (row, cells) in rows.enumerated() {
                for (column, cell) in cells.enumerated() {
                    if let cell { try check(cell, field: "\(field), row \(row + 1) column \(column + 1)") }
                }
            }
        case .number, .bool, .location: break
        }
    }

    /// Checks every text a person wrote into `form`: its name, answers, comments, foreman
    /// comments, return note and the technician's display name (for a form.json that arrives
    /// from elsewhere, e.g. an upload, or was saved before this rule, e.g. at submit).
    public static func check(_ form: Form) throws(TextRuleError) {
        try check(form.name, field: "form name")
        for (id, answer) in form.answers.sorted(by: { $0.key < $1.key }) {
            if let value = answer.value { try check(value, field: "answer to \(id)") }
            if let draft = answer.draft { try check(.cells(draft), field: "draft of \(id)") }
            if let comment = answer.comment { try check(comment, field: "comment on \(id)", allowNewlines: true) }
        }
        for comment in form.foremanComments { try check(comment.text, field: "foreman comment", allowNewlines: true) }
        if let note = form.returnNote { try check(note, field: "return note", allowNewlines: true) }
        if let name = form.userDisplayName { try check(name, field: "technician's display name") }
    }
}

/// Text refused by `TextRules`.
public enum TextRuleError: ClassifiedError, Sendable, Equatable {
    /// `field` holds the control character `scalar` at `position` (counted from 1).
    case controlCharacter(field: String, scalar: UInt32, position: Int)

    public var failureClass: FailureClass { .badData }

    public var code: String { "control-character" }

    public var errorDescription: String? {
        switch self {
        case .controlCharacter(let field, let scalar, let position):
            let name = String(scalar, radix: 16, uppercase: true)
            let shown = "U+" + String(repeating: "0", count: max(0, 4 - name.count)) + name
            let hint = scalar == 0x1B ? " (ESC: arrow and function keys send it)" : scalar == 0x09 ? " (a tab: use spaces)" : ""
            return "the \(field) contains the control character \(shown)\(hint) at character \(position) — type plain text; nothing was saved"
        }
    }
}

/// Text from a form made safe to print on a terminal: control characters a form written by
/// another tool may still hold are shown, not obeyed. ESC is shown as `\e`, every other
/// control character (C0, DEL, C1) as `\u{xx}` (lowercase hex, e.g. `\u{7f}`, `\u{9b}`); a
/// newline is kept only with `keepingNewlines`. Everything else, backslashes included, is
/// printed as it is. JSON output needs none of this: JSON escapes control characters itself.
public enum DisplayText {
    /// `text` with its control characters escaped (see `DisplayText`).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: TextRules.isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if !TextRules.isControl(scalar) || (keepingNewlines && scalar == "\n") {
                result.unicodeScalars.append(scalar)
            } else if scalar.value == 0x1B {
                result += "\\e"
            } else {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }
}
