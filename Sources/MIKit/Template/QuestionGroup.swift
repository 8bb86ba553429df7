import Foundation

/// A group or a repeat of a template (issue 24): `{"type": "group", "id": …, "questions": [...]}`
/// or `{"type": "repeat", "id": …, "repeatCount": …, "questions": [...]}`, nested as deep as a
/// form needs. `Template.questions` stays the flat list of every question in the order they are
/// asked; each question names its innermost group (`Question.group`) and each group its parent,
/// so a template without groups is exactly what it was before them.
///
/// A group gathers questions under a label and one `relevant` that applies to all of them. A
/// repeat asks its questions once per instance: `repeatCount` times (a number or an expression,
/// evaluated where the repeat stands), or as many times as the technician adds one ("Add another
/// <label>?") when it has none. Answers in an instance are addressed by path: `trees[2]/cbh`.
public struct QuestionGroup: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case group
        case `repeat`
    }

    /// How many instances a repeat has.
    public enum RepeatCount: Sendable, Equatable {
        /// A fixed number.
        case fixed(Int)
        /// An expression evaluated in the instance the repeat stands in (`${pumps}`).
        case expression(Expression)

        public var text: String {
            switch self {
            case .fixed(let count): return String(count)
            case .expression(let expression): return expression.text
            }
        }
    }

    public var id: String
    public var kind: Kind
    /// Its label (`"text"`), shown above its questions; a group may have none.
    public var text: String?
    /// The id of the group or repeat it stands in; nil at the template's top level.
    public var parent: String?
    /// Asked only when true: makes every question inside not relevant when false.
    public var relevant: Expression?
    /// A repeat's number of instances; nil for a group and for an open repeat.
    public var repeatCount: RepeatCount?
    /// Its label in each language, when given in several.
    public var labels: [String: String]

    public init(id: String, kind: Kind, text: String? = nil, parent: String? = nil, relevant: Expression? = nil,
                repeatCount: RepeatCount? = nil, labels: [String: String] = [:]) {
        self.id = id
        self.kind = kind
        self.text = text
        self.parent = parent
        self.relevant = relevant
        self.repeatCount = repeatCount
        self.labels = labels
    }

    public var isRepeat: Bool { kind == .repeat }

    /// What the technician reads: the label, or the id.
    public var label: String { text ?? id }

    /// The most instances a repeat may have: a count past it is refused (a typed answer) or
    /// reported (an expression that gives more).
    public static let maxInstances = 1_000

    /// Every expression with the key it stands under.
    public var expressions: [(key: TemplateKeys.Key, expression: Expression)] {
        var result: [(key: TemplateKeys.Key, expression: Expression)] = []
        if let relevant { result.append((.relevant, relevant)) }
        if case .expression(let expression)? = repeatCount { result.append((.repeatCount, expression)) }
        return result
    }
}

extension TemplateKeys.Key {
    /// The `type` of a group and of a repeat, and a repeat's count.
    public static let group = Self("group"), `repeat` = Self("repeat"), repeatCount = Self("repeatCount")
    /// The keys a group or repeat object may have.
    static let groupScope: [Self] = [.id, .type, .text, .relevant, .repeatCount, .questions]
}

extension Template {
    /// The group or repeat of that id.
    public func group(id: String) -> QuestionGroup? { groups.first { $0.id == id } }

    /// The groups and repeats `question` stands in, outermost first.
    public func groupChain(of question: Question) -> [QuestionGroup] { groupChain(from: question.group) }

    /// `id` and the groups around it, outermost first.
    public func groupChain(from id: String?) -> [QuestionGroup] {
        var chain: [QuestionGroup] = []
        var next = id
        while let current = next, let group = group(id: current), chain.count <= groups.count {
            chain.insert(group, at: 0)
            next = group.parent
        }
        return chain
    }

    /// The repeats `question` stands in, outermost first: the steps of its answers' paths.
    public func repeatChain(of question: Question) -> [QuestionGroup] { groupChain(of: question).filter(\.isRepeat) }

    /// Whether any question stands in a repeat.
    public var hasRepeats: Bool { groups.contains(where: \.isRepeat) }
}
