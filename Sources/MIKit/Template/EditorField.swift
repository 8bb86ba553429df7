import Foundation

/// How the office template editor edits one template key: which input it draws, with which
/// caption. A question type lists its keys' fields in `QuestionType.editorFields` (the default
/// takes every key as a line of text), and the template's own keys are `Template.editorFields`;
/// the editor draws them from this list without knowing the type, and MIKit's validator (the
/// editor's live check) judges what is typed.
public struct EditorField: Sendable, Equatable {
    /// The input a key needs. A scalar kind is drawn the same for every key that has it; the
    /// structured kinds are the editors of a multiple-choice question's options and of a
    /// table's rows, columns and no-value cells.
    public enum Input: String, Sendable, CaseIterable {
        /// A checkbox: `true` when ticked, the key left out when not.
        case flag
        /// A number (JSON number).
        case number
        /// A whole number (JSON number).
        case wholeNumber
        /// A line of text.
        case text
        /// Text that may hold line breaks.
        case longText
        /// An ISO 8601 date as text (`2026-11-26`).
        case date
        /// A time of day as text (`14:30`, `14:30:15`).
        case time
        /// A date and time as text (`2026-11-26T14:30`, with an offset when one is given).
        case dateTime
        /// One of `EditorField.choices` (or none: the key left out).
        case choice
        /// An expression (docs/expressions.md) as a line of text, checked by MIKit's parser.
        case expression
        /// `true`, `false` or an expression, typed as text: `true` and `false` are sent as
        /// JSON booleans, anything else as the expression.
        case condition
        /// A repeat's count: a whole number or an expression, typed as text; a number is sent
        /// as a JSON number, anything else as the expression.
        case count
        /// A list of options, each a label with an optional name.
        case options
        /// A table's row labels.
        case rows
        /// A table's column labels.
        case columns
        /// The table's cells that take no value, as [row, column] pairs.
        case cells
    }

    public var key: TemplateKeys.Key
    public var input: Input
    /// The label beside the input ("Minimum").
    public var caption: String
    /// The values a `choice` offers.
    public var choices: [String]
    /// What the input shows while empty ("2026-11-26").
    public var placeholder: String?

    public init(_ key: TemplateKeys.Key, _ input: Input, _ caption: String? = nil, choices: [String] = [],
                placeholder: String? = nil) {
        self.key = key
        self.input = input
        self.caption = caption ?? Self.caption(of: key)
        self.choices = choices
        self.placeholder = placeholder ?? Self.placeholder(of: input)
    }

    /// A caption made from the key's name: `minAccuracy` → "Min accuracy".
    public static func caption(of key: TemplateKeys.Key) -> String {
        var words: [String] = []
        var word = ""
        for character in key.rawValue {
            if character.isUppercase, !word.isEmpty {
                words.append(word)
                word = ""
            }
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        let text = words.map { $0.lowercased() }.joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// The example an empty input of a text kind shows.
    static func placeholder(of input: Input) -> String? {
        switch input {
        case .date: return "2026-11-26"
        case .time: return "14:30"
        case .dateTime: return "2026-11-26T14:30"
        case .flag, .number, .wholeNumber, .text, .longText, .choice, .expression, .condition, .count, .options, .rows, .columns, .cells: return nil
        }
    }

    /// The field as the editor's `data-types` / `data-template-fields` JSON carries it, with
    /// the key's logical name (the editor maps it to the configured JSON name).
    public var editorJSON: [String: Any] {
        var object: [String: Any] = ["key": key.rawValue, "input": input.rawValue, "caption": caption]
        if !choices.isEmpty { object["choices"] = choices }
        if let placeholder { object["placeholder"] = placeholder }
        return object
    }
}

extension Template {
    /// The template's own keys the office editor edits besides its id and title (the version is
    /// the server's to number, the questions are edited one by one).
    public static var editorFields: [EditorField] {
        [
            EditorField(.oncePerUser, .flag, "One form per technician"),
            EditorField(.scoring, .choice, "Scoring", choices: Scoring.allCases.map(\.rawValue)),
            EditorField(.consent, .longText, "Consent text (accepted before the first answer)"),
            EditorField(.captureLocation, .flag, "Record where each form is started"),
        ]
    }
}

extension QuestionGroup {
    /// How the office editor edits a group or a repeat besides its id and its questions: its
    /// label, its relevance (an expression, as on a question) and, on a repeat, its count.
    /// `/templates/check` judges what is typed with the same parser as `mi`.
    public static func editorFields(for kind: Kind) -> [EditorField] {
        var fields = [
            EditorField(.text, .text, "Label"),
            EditorField(.relevant, .expression, "Relevant (asked only when)", placeholder: "${leak} = 'yes'"),
        ]
        switch kind {
        case .group: break
        case .repeat:
            fields.append(EditorField(.repeatCount, .count, "Repeat count",
                                      placeholder: "${npumps} or 3 — empty: as many as needed"))
        }
        return fields
    }

    /// The `type` a group or a repeat has in template JSON (its logical name).
    public static func typeKey(of kind: Kind) -> TemplateKeys.Key {
        switch kind {
        case .group: return .group
        case .repeat: return .repeat
        }
    }

    /// What the editor's menu calls the kind.
    public static func displayName(of kind: Kind) -> String {
        switch kind {
        case .group: return "Group"
        case .repeat: return "Repeat"
        }
    }
}
