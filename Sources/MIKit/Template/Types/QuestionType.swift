import Foundation

/// A kind of question: everything MI knows about it lives in one file under `Types/` that
/// conforms to this protocol and is listed once in `QuestionTypes.all`. The rest of MI asks
/// the type (a template key, a parsed answer, a CSV cell, a tally shape, a presentation) and
/// never switches over types; see docs/templates.md, "Adding a question type".
///
/// A type is a value holding its settings from the template (a multiple-choice question's
/// options, a numeric question's bounds); `Question.kind` wraps it.
public protocol QuestionType: Sendable, Equatable {
    // MARK: Template keys

    /// The type's name in template JSON (the value of `type`), renamable in Config.plist.
    static var typeKey: TemplateKeys.Key { get }
    /// The question keys the type reads besides `id`, `type`, `text`, `help` and `image`.
    static var keys: [TemplateKeys.Key] { get }
    /// Keys of the objects inside the question's settings (an option's `name` and `label`):
    /// their own scope, so they may share a name with a question key.
    static var nestedKeys: [TemplateKeys.Key] { get }
    /// Reads the type's settings from a question object, naming every problem through
    /// `validator` (which knows the template, the question and the key names); nil when the
    /// settings cannot make a question.
    static func decode(_ object: [String: JSONValue], question: String, validator: inout TemplateValidator) -> Self?
    /// Writes the type's settings (not `type` itself) with these key names.
    func encode(into object: inout [String: JSONValue], keys: TemplateKeys)

    /// The type's name in the office editor's menu ("Multiple choice").
    static var displayName: String { get }
    /// A short human name of the type with its rules ("whole number from 0 to 10").
    var typeDescription: String { get }
    /// How the office template editor edits each of `keys`, in the order it shows them: the
    /// input each needs (a checkbox, a number, an ISO date, the options editor, …) and its
    /// caption. The default takes every key as a line of text; a type whose keys are not text
    /// says so here, in its own file.
    static var editorFields: [EditorField] { get }

    // MARK: Answers

    /// Whether the question takes an answer at all. A type that takes none (a note) is shown in
    /// its place but never asked, never open, never exported or counted; `mi answer` refuses it.
    var takesAnswer: Bool { get }
    /// The value of one typed line (`mi fill`, `mi answer FORM Q WORDS…`), refused through `rules`.
    func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue
    /// The value an answers file gives.
    func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue
    /// Checks a value a form.json holds that MI did not write itself (an upload to mi-server,
    /// `Form.checkStoredAnswers`), refusing through `rules`. Default: the value reads back to
    /// itself through `value(fromJSON:rules:)`, so the type's own rules are the server's.
    func checkStored(_ stored: AnswerValue, rules: AnswerRules) throws

    // MARK: mi fill

    /// Lines shown under the question's text before it is answered (numbered options).
    var promptLines: [String] { get }
    /// What the answer prompt says before `> ` ("Number ").
    var answerHint: String { get }
    /// The words Tab completes while the answer is typed.
    var completions: [String] { get }
    /// The grid a question answered cell by cell asks, saving a draft as it goes; nil for a
    /// question answered on one line.
    var grid: GridLayout? { get }
    /// A question answered with a position from gpsd (`mi answer --gps`, Enter or `gps` in
    /// `mi fill`): the fix it waits for; nil for a question that takes no position.
    var positionFix: PositionFix? { get }

    // MARK: Simulation, statistics, exports, search

    /// A plausible valid value for `mi simulate`, as an answers file would give it; nil when
    /// the question admits none.
    func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue?
    /// The same for a form started at `context.temporal.now` in its zone (a date drawn in a
    /// window around it) and near `context.near` (a location); by default `simulatedValue(_:)`.
    func simulatedValue(_ generator: inout SeededGenerator, context: SimulationContext) -> JSONValue?
    /// How statistics count the type's answers.
    var tally: TallyShape { get }
    /// The labels a value counts as, for a `choices` tally (and grouping by the question).
    func tallyLabels(_ value: AnswerValue) -> [String]
    /// The CSV export's columns of a question `id` of this type (its comment column follows).
    func csvHeader(question id: String) -> [String]
    /// The CSV cells of `value` under `csvHeader`; `form` is the form the value comes from, whose
    /// own template copy may be an older version of the question; `id` is the answer's key in it
    /// (the question's id, or its path in a repeat: `trees[2]/photo`).
    func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String]
    /// The text a search finds the answer by, nil for none.
    func searchText(_ value: AnswerValue) -> String?

    // MARK: Presentation

    /// What `mi review`, the PDF, the office submission page draw for the answer (or for no
    /// answer): one of a closed set of shapes, so they draw every type without knowing it.
    /// Nil when there is nothing to draw but "no answer".
    func presentation(of value: AnswerValue?) -> AnswerShape?
    /// The whole answer's shape (its value, or for a type whose answer is attached media, its
    /// files): what the readers call. Default: the value's presentation.
    func presentation(of answer: Answer) -> AnswerShape?

    // MARK: Answered by attached files

    /// The seed's answer-or-comment rule for this type: whether `answer` leaves the question
    /// done. Default: a value or a comment, and no table still being typed (`Answer.isDone`).
    func isDone(_ answer: Answer) -> Bool
    /// What files are the answer, for a type whose answer is attached media (a photo); nil for a
    /// type whose answer is a value (media may still be attached beside it, of any kind).
    var answerMedia: MediaAnswer? { get }
    /// Checks the media the question would hold after an attach (`names`: those attached
    /// before, then the new files' names), refusing through `rules`. Default: any.
    func checkMedia(_ names: [String], rules: AnswerRules) throws
    /// The comment `mi simulate` leaves on the question when `simulatedValue` gives none.
    var simulatedStandIn: String { get }

    // MARK: Form logic

    /// Whether the type holds only the value of the question's `calculation` (`calculate`):
    /// a template must give it one. Default: false.
    var holdsCalculation: Bool { get }
    /// The options a `choiceFilter` filters (a multiple choice's); nil for a type without
    /// options, which takes no filter. Default: nil.
    var filterableChoices: [MultipleChoiceQuestion.Choice]? { get }
    /// The type with its own texts (an option's label) in `language`, when it has them.
    func localized(to language: String) -> any QuestionType
}

extension QuestionType {
    public var typeKey: TemplateKeys.Key { Self.typeKey }
    public static var nestedKeys: [TemplateKeys.Key] { [] }
    public static var editorFields: [EditorField] { keys.map { EditorField($0, .text) } }

    public var takesAnswer: Bool { true }

    public func simulatedValue(_ generator: inout SeededGenerator, context: SimulationContext) -> JSONValue? {
        simulatedValue(&generator)
    }

    public var promptLines: [String] { [] }
    public var answerHint: String { "" }
    public var completions: [String] { [] }
    public var grid: GridLayout? { nil }
    public var positionFix: PositionFix? { nil }

    public func tallyLabels(_ value: AnswerValue) -> [String] { ChoiceLabels.of(value) }

    public func csvHeader(question id: String) -> [String] { [id] }
    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] { [value.map(CSVLayout.text) ?? ""] }

    /// The value's own text: text as typed, numbers and choices as shown, a table's cells;
    /// true/false is not searchable.
    public func searchText(_ value: AnswerValue) -> String? {
        switch value {
        case .text(let text): return text
        case .number, .choices: return value.display
        case .cells(let rows): return rows.flatMap { $0.compactMap { $0 } }.joined(separator: " ")
        case .location(let point): return point.typedString
        case .bool: return nil
        }
    }

    public func checkStored(_ stored: AnswerValue, rules: AnswerRules) throws {
        let read = try value(fromJSON: stored.json, rules: rules)
        guard read == stored else {
            throw rules.refuse("the stored value \"\(stored.display)\" is not one MI stores: it would be \"\(read.display)\"")
        }
    }

    public func presentation(of value: AnswerValue?) -> AnswerShape? { value.map { .text($0.display) } }
    public func presentation(of answer: Answer) -> AnswerShape? { presentation(of: answer.value) }

    public func isDone(_ answer: Answer) -> Bool { answer.isDone }
    public var answerMedia: MediaAnswer? { nil }
    public func checkMedia(_ names: [String], rules: AnswerRules) throws {}
    public var simulatedStandIn: String { "No value possible" }
    public var holdsCalculation: Bool { false }
    public var filterableChoices: [MultipleChoiceQuestion.Choice]? { nil }
    public func localized(to language: String) -> any QuestionType { self }

    /// Whether `other` is the same type with the same settings.
    public func isSame(as other: any QuestionType) -> Bool { (other as? Self) == self }
}

/// The shapes an answer is drawn in. Every reader (`mi review`, the PDF, the office) draws each
/// of them; a type picks the one that fits its answers.
public enum AnswerShape: Sendable, Equatable {
    /// A line (or lines) of text: a number, a short answer, a value that no longer fits its
    /// question.
    case text(String)
    /// Yes or no (`true`/`false` in `mi review`, Yes/No on paper).
    case yesNo(Bool)
    /// Options to tick.
    case choices(ChoiceList)
    /// A grid of cells.
    case grid(GridLayout, cells: [[String?]])
    /// Nothing to answer: the question's text is all there is (a note). Drawn without an answer
    /// line and never marked open.
    case note
    /// A point on the globe: latitude, longitude, and altitude and accuracy when known.
    case location(Geopoint)
    /// Attached files that are the answer (a photo question's photos), in the order attached:
    /// drawn as the form's media are (thumbnails, players, links).
    case media(kind: MediaKind, names: [String])
}

/// What a question asks of gpsd: a fix whose accuracy is `accuracy` metres or better (any fix
/// when nil). The fix is then read by the type's `value(fromJSON:)` like a typed point.
public struct PositionFix: Sendable, Equatable {
    public var accuracy: Double?
    public init(accuracy: Double?) { self.accuracy = accuracy }
}

/// The options of a choice question and which were chosen.
public struct ChoiceList: Sendable, Equatable {
    /// The options the template offers, in its order.
    public var options: [String]
    /// The chosen labels as stored (possibly one the template no longer offers).
    public var chosen: [String]
    public init(options: [String], chosen: [String]) { self.options = options; self.chosen = chosen }
    /// Chosen labels the template does not offer.
    public var extra: [String] { chosen.filter { !options.contains($0) } }
}

/// Rows and columns of labelled cells, some of which take no value.
public struct GridLayout: Sendable, Equatable {
    public var rows: [String]
    public var columns: [String]
    /// The (row, column) pairs, from 0, that take no value.
    public var noCells: Set<Cell>

    public init(rows: [String], columns: [String], noCells: Set<Cell>) {
        self.rows = rows
        self.columns = columns
        self.noCells = noCells
    }

    /// The cells that take a value, row by row: the order they are asked in.
    public var valueCells: [Cell] {
        rows.indices.flatMap { row in columns.indices.map { Cell(row: row, column: $0) }.filter { !noCells.contains($0) } }
    }

    /// `cell [1, 0] (Non-drive end / Temperature)`.
    public func place(_ row: Int, _ column: Int) -> String {
        guard rows.indices.contains(row), columns.indices.contains(column) else { return "cell [\(row), \(column)]" }
        return "cell [\(row), \(column)] (\(rows[row]) / \(columns[column]))"
    }

    /// The cell at (row, column) of `cells`, nil outside it.
    public static func cell(_ cells: [[String?]], _ row: Int, _ column: Int) -> String? {
        row >= 0 && row < cells.count && column >= 0 && column < cells[row].count ? cells[row][column] : nil
    }
}

/// How statistics count a type's answers.
public enum TallyShape: Sendable, Equatable {
    /// Labels counted per form (options, or true and false); forms can be grouped by them.
    case choices(labels: [String], multipleAnswers: Bool)
    /// Numbers summarised (quartiles, mean); values that are not numbers listed as text.
    case numbers(integer: Bool)
    /// The most frequent texts.
    case texts
    /// Each cell of the grid counted on its own.
    case grid(GridLayout)
    /// Calendar dates (`YYYY-MM-DD` text, or the date of a date and time) counted per day.
    case days
    /// Times of day (`HH:MM` text) counted per hour, 00 to 23.
    case hours
    /// Not counted: a type that takes no answer (a note) is left out of statistics.
    case notCounted
    /// Points counted, their bounding box, and the points themselves for a plot.
    case locations
    /// Forms whose answer is attached files of this kind: answered when they have one, and the
    /// files counted per kind (as every question's media are).
    case files(MediaKind)
}
