import Foundation

/// A form template: what the server publishes and a form keeps a copy of.
public struct Template: Sendable, Equatable {
    public var id: String
    public var title: String
    public var version: Int
    public var questions: [Question]
    /// The built-in scorer computed over the answers (`"scoring"`), if any.
    public var scoring: Scoring?
    /// At most one form of this template per user (`"oncePerUser"`): `mi new` and the server
    /// refuse a second.
    public var oncePerUser: Bool
    /// A text the respondent must accept before the first answer (`"consent"`).
    public var consent: String?
    /// `mi new` records where the form was started (`"captureLocation": true`): from gpsd, or
    /// typed with `--location`; the form is started without one when none is available.
    public var captureLocation: Bool
    /// Its groups and repeats (`QuestionGroup`), in the order they open; each question names
    /// the innermost one it stands in (`Question.group`). Empty for a flat template.
    public var groups: [QuestionGroup]
    /// The language every text in several languages has (`"defaultLanguage"`); the plain text
    /// fields hold its texts. Nil for a template in one language.
    public var defaultLanguage: String?
    /// The title in each language, when it is given in several (`Languages.swift`).
    public var titleTranslations: [String: String]

    public init(id: String, title: String, version: Int, questions: [Question], scoring: Scoring? = nil,
                oncePerUser: Bool = false, consent: String? = nil, captureLocation: Bool = false,
                groups: [QuestionGroup] = [], defaultLanguage: String? = nil, titleTranslations: [String: String] = [:]) {
        self.id = id
        self.title = title
        self.version = version
        self.questions = questions
        self.scoring = scoring
        self.oncePerUser = oncePerUser
        self.consent = consent
        self.captureLocation = captureLocation
        self.groups = groups
        self.defaultLanguage = defaultLanguage
        self.titleTranslations = titleTranslations
    }

    /// Lowercase hex SHA-256 of the consent text's UTF-8 bytes: what an acceptance records.
    public var consentDigest: String? { consent.map { FileDigest.sha256(of: Data($0.utf8)) } }

    /// The files the template's questions show, in question order, each once.
    public var files: [String] {
        var seen: Set<String> = []
        return questions.compactMap(\.image).filter { seen.insert($0).inserted }
    }

    /// The questions that take an answer (all but notes): what "N of M questions done" counts.
    public var answerableCount: Int { questions.reduce(0) { $0 + ($1.type.takesAnswer ? 1 : 0) } }

    /// Whether any question has form logic, or the template has groups or repeats: a template
    /// without behaves exactly as before.
    public var hasLogic: Bool { !groups.isEmpty || questions.contains { !$0.logic.isEmpty } }

    public func question(id: String) -> Question? { questions.first { $0.id == id } }
    public func index(of questionID: String) -> Int? { questions.firstIndex { $0.id == questionID } }
}

/// One question of a template.
public struct Question: Sendable, Equatable {
    public var id: String
    public var text: String
    public var help: String?
    /// A picture shown with the question: a file name that travels with the template
    /// (`GET /api/v1/templates/{id}/files/{name}`, cached beside the template).
    public var image: String?
    public var kind: Kind
    /// Its form logic (`relevant`, `constraint`, `required`, `calculation`, …): `.none` for a
    /// question without, which behaves as questions always have.
    public var logic: QuestionLogic
    /// The id of the innermost group or repeat it stands in (`Template.groups`); nil at the
    /// template's top level.
    public var group: String?
    /// Its texts in each language, when the template gives them in several (the default
    /// language's included); `text`, `help`, `image` and the logic's messages hold the default's.
    public var translations: [String: QuestionTexts]

    public init(id: String, text: String, help: String? = nil, image: String? = nil, kind: Kind, logic: QuestionLogic = .none,
                group: String? = nil, translations: [String: QuestionTexts] = [:]) {
        self.id = id
        self.text = text
        self.help = help
        self.image = image
        self.kind = kind
        self.logic = logic
        self.group = group
        self.translations = translations
    }

    /// The extensions a question's image may have.
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// The question's type and its settings (`QuestionType`, one file per type under
    /// `Template/Types/`, each with a static maker here: `Kind multipleChoice(options:maxAnswers:)`…).
    public struct Kind: Sendable, Equatable {
        public let type: any QuestionType
        public init(_ type: any QuestionType) { self.type = type }
        public static func == (lhs: Kind, rhs: Kind) -> Bool { lhs.type.isSame(as: rhs.type) }
    }

    /// The question's type with its settings.
    public var type: any QuestionType { kind.type }

    /// The type's name in template JSON with the default keys (`multipleChoice`, `trueFalse`,
    /// `shortAnswer`, `numeric`, `table`): what wire types and `--json` call it.
    public var typeName: String { kind.type.typeKey.rawValue }

    /// A short human name of the question's type.
    public var typeDescription: String { kind.type.typeDescription }
}

/// A table cell, by row and column from 0.
public struct Cell: Hashable, Sendable, Comparable {
    public var row: Int
    public var column: Int
    public init(row: Int, column: Int) { self.row = row; self.column = column }
    public static func < (lhs: Cell, rhs: Cell) -> Bool { (lhs.row, lhs.column) < (rhs.row, rhs.column) }
}

/// Formats a number without a trailing ".0" when it is whole.
public func formatNumber(_ value: Double) -> String {
    if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
