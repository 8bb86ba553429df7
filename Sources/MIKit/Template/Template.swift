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

    public init(id: String, title: String, version: Int, questions: [Question], scoring: Scoring? = nil,
                oncePerUser: Bool = false, consent: String? = nil) {
        self.id = id
        self.title = title
        self.version = version
        self.questions = questions
        self.scoring = scoring
        self.oncePerUser = oncePerUser
        self.consent = consent
    }

    /// Lowercase hex SHA-256 of the consent text's UTF-8 bytes: what an acceptance records.
    public var consentDigest: String? { consent.map { FileDigest.sha256(of: Data($0.utf8)) } }

    /// The files the template's questions show, in question order, each once.
    public var files: [String] {
        var seen: Set<String> = []
        return questions.compactMap(\.image).filter { seen.insert($0).inserted }
    }

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

    public init(id: String, text: String, help: String? = nil, image: String? = nil, kind: Kind) {
        self.id = id
        self.text = text
        self.help = help
        self.image = image
        self.kind = kind
    }

    /// The extensions a question's image may have.
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    public enum Kind: Sendable, Equatable {
        /// `maxAnswers`: 1 = exactly one, 0 = any number, n = up to n.
        case multipleChoice(options: [String], maxAnswers: Int)
        case trueFalse
        case shortAnswer
        case numeric(integer: Bool, min: Double?, max: Double?)
        /// `noCells` are the (row, column) pairs, from 0, that take no value.
        case table(rows: [String], columns: [String], noCells: Set<Cell>)
    }

    /// The type's name in template JSON with the default keys (`multipleChoice`, `trueFalse`,
    /// `shortAnswer`, `numeric`, `table`): what wire types and `--json` call it.
    public var typeName: String {
        switch kind {
        case .multipleChoice: return TemplateKeys.Key.multipleChoice.rawValue
        case .trueFalse: return TemplateKeys.Key.trueFalse.rawValue
        case .shortAnswer: return TemplateKeys.Key.shortAnswer.rawValue
        case .numeric: return TemplateKeys.Key.numeric.rawValue
        case .table: return TemplateKeys.Key.table.rawValue
        }
    }

    /// A short human name of the question's type.
    public var typeDescription: String {
        switch kind {
        case .multipleChoice(_, let maxAnswers):
            switch maxAnswers {
            case 1: return "multiple choice, one answer"
            case 0: return "multiple choice, any number of answers"
            default: return "multiple choice, up to \(maxAnswers) answers"
            }
        case .trueFalse: return "true/false"
        case .shortAnswer: return "short answer"
        case .numeric(let integer, let min, let max):
            var text = integer ? "whole number" : "number"
            switch (min, max) {
            case let (min?, max?): text += " from \(formatNumber(min)) to \(formatNumber(max))"
            case let (min?, nil): text += " of at least \(formatNumber(min))"
            case let (nil, max?): text += " of at most \(formatNumber(max))"
            case (nil, nil): break
            }
            return text
        case .table(let rows, let columns, _): return "table, \(rows.count) × \(columns.count)"
        }
    }
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
