import Foundation

/// A built-in scorer a template names with `"scoring"`. Scores are computed from the answers
/// by MIKit alone — by `mi` whenever answers change and again by mi-server on upload, which
/// never takes a client's figures.
public enum Scoring: String, Sendable, CaseIterable, Codable {
    /// The IPAQ short form, per the IPAQ group's "Guidelines for Data Processing and Analysis"
    /// (November 2005).
    case ipaqShort = "ipaq-short"
    /// The MMSE items a program can check; the rest need an examiner.
    case mmse

    /// A question the scorer reads, by id, and the types it accepts there.
    public struct Requirement: Sendable {
        public var question: String
        public var accepts: [Kind]
        public enum Kind: Sendable, Equatable {
            case wholeNumber, text
            var name: String { self == .wholeNumber ? "a whole-number numeric question" : "a short-answer question" }

            /// Whether a question of `type` gives this kind of value.
            func fits(_ type: any QuestionType) -> Bool {
                switch self {
                case .wholeNumber: return (type as? NumericQuestion)?.integer == true
                case .text: return type is ShortAnswerQuestion
                }
            }
        }
    }

    /// The questions the scorer reads; a template naming it must have each, of a type it accepts.
    public var requirements: [Requirement] {
        switch self {
        case .ipaqShort:
            return IPAQShort.questionIDs.map { Requirement(question: $0, accepts: [.wholeNumber]) }
        case .mmse:
            return MMSEScorer.requirements
        }
    }

    /// Problems with `template` for this scorer, each naming the question: a missing question
    /// or one of a type the scorer cannot read.
    func problems(in template: Template) -> [(question: String, message: String)] {
        requirements.compactMap { requirement in
            guard let question = template.question(id: requirement.question) else {
                return (requirement.question, "scoring \"\(rawValue)\" needs a question with this id")
            }
            let fits = requirement.accepts.contains { $0.fits(question.type) }
            guard fits else {
                let names = requirement.accepts.map(\.name).joined(separator: " or ")
                return (requirement.question, "scoring \"\(rawValue)\" reads this question as \(names)")
            }
            return nil
        }
    }

    /// The scores of `form`'s current answers.
    public func score(_ form: Form) -> ScoreSheet {
        switch self {
        case .ipaqShort: return IPAQShort.score(form)
        case .mmse: return MMSEScorer.score(form)
        }
    }
}

/// The scores of one form: named values in a fixed order (`ipaq.totalMET`, `mmse.automatic`…),
/// with the per-item results of scorers that judge items one by one.
public struct ScoreSheet: Sendable, Equatable {
    public var scoring: Scoring
    /// In the scorer's order; keys are unique.
    public var values: [ScoreEntry]
    /// Per-item results (MMSE); empty for scorers that do not judge items.
    public var items: [ScoreItem]
    /// What a reader must know about the figures ("not a full 30-point MMSE …"), if anything.
    public var note: String?

    public init(scoring: Scoring, values: [ScoreEntry], items: [ScoreItem] = [], note: String? = nil) {
        self.scoring = scoring
        self.values = values
        self.items = items
        self.note = note
    }

    public subscript(key: String) -> ScoreValue? { values.first { $0.key == key }?.value }

    /// Every key a scorer can produce, in its order: the export's columns and the statistics'.
    public static func keys(of scoring: Scoring) -> [String] {
        switch scoring {
        case .ipaqShort: return IPAQShort.keys
        case .mmse: return MMSEScorer.keys
        }
    }
}

public struct ScoreEntry: Sendable, Equatable {
    public var key: String
    public var value: ScoreValue
    public init(_ key: String, _ value: ScoreValue) { self.key = key; self.value = value }
}

/// A score: a figure, or a category or reason in words.
public enum ScoreValue: Sendable, Equatable, Codable {
    case number(Double)
    case text(String)

    public var display: String {
        switch self {
        case .number(let number): return formatNumber(number)
        case .text(let text): return text
        }
    }

    public var json: JSONValue {
        switch self {
        case .number(let number): return .number(number)
        case .text(let text): return .string(text)
        }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) { self = .number(number) } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(JSONValue.number(number))
        case .text(let text): try container.encode(text)
        }
    }
}

/// One item a scorer judged, or left to an examiner.
public struct ScoreItem: Sendable, Equatable, Codable {
    public enum Result: String, Sendable, Codable {
        case correct, incorrect
        /// No answer to judge (not answered, or a comment only).
        case unanswered
        /// A program cannot judge it: an examiner scores it.
        case examiner
    }
    public var question: String
    public var result: Result
    /// Points given (nil when an examiner must judge) out of `maxPoints`.
    public var points: Int?
    public var maxPoints: Int
    /// What the scorer expected, in words ("93", "martes", "reloj"), when it judged the item.
    public var expected: String?

    public init(question: String, result: Result, points: Int?, maxPoints: Int, expected: String? = nil) {
        self.question = question
        self.result = result
        self.points = points
        self.maxPoints = maxPoints
        self.expected = expected
    }
}

extension Form {
    /// The scores of the current answers, when the template names a scorer.
    public var scores: ScoreSheet? { template.scoring.map { $0.score(self) } }

    /// The scores of the current answers by key, as receipts and summaries carry them; nil
    /// when the template names no scorer.
    public var scoreValues: [String: ScoreValue]? { scores?.valueMap }
}

extension ScoreSheet {
    /// The values by key (the order is the sheet's; a dictionary keeps none).
    public var valueMap: [String: ScoreValue] {
        Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// `{"ipaq.totalMET": 1386, "ipaq.category": "moderate", …}`: the values as one JSON object.
    public var valuesJSON: JSONValue {
        .object(valueMap.mapValues(\.json))
    }
}

extension ScoreItem {
    /// The result in words, as `mi review`, the PDF and the office page print it:
    /// "correct, 1/1", "incorrect, 0/1 (expected 93)", "not answered, 0/1", "needs an examiner".
    public var summary: String {
        let points = "\(self.points ?? 0)/\(maxPoints)"
        switch result {
        case .correct: return "correct, \(points)"
        case .incorrect: return "incorrect, \(points)" + (expected.map { " (expected \($0))" } ?? "")
        case .unanswered: return "not answered, \(points)"
        case .examiner: return "needs an examiner"
        }
    }
}
