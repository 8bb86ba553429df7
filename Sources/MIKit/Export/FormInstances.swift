import Foundation

/// The repeat instances of one form as an export or the statistics see them, laid out by a
/// template (the export's or the statistics' version): every instance of each repeat, in the
/// order asked (`FormLogic.layout`), an instance left out only when it is not relevant and holds
/// no answer (ODK makes no instance of a repeat that is not relevant). An answer at an instance
/// the layout does not count (a form of another version) still brings its instance in, after
/// the others, so no value is dropped.
public struct FormInstances: Sendable {
    /// One instance: its repeat and its steps (the parents' and its own).
    public struct Instance: Sendable, Equatable {
        public var group: QuestionGroup
        public var steps: [InstanceStep]

        /// `trees[2]`, `trees[2]/stems[1]`.
        public var path: String { steps.map { "\($0.repeatID)[\($0.index)]" }.joined(separator: "/") }
        /// The export's `KEY`: `<form id>/trees[2]/stems[1]`.
        public func key(form id: String) -> String { id + "/" + path }
        /// The export's `PARENT_KEY`: the form id, or the key of the instance it stands in.
        public func parentKey(form id: String) -> String {
            steps.count <= 1 ? id : id + "/" + Instance(group: group, steps: Array(steps.dropLast())).path
        }
    }

    /// Every instance, each repeat's in the order asked; the repeats as they open.
    public var instances: [Instance]

    public init(_ form: Form, logic: FormLogic, now: Date) {
        var present = Set<String>()
        var answered: [[InstanceStep]] = []
        for key in form.answers.keys.sorted() {
            guard let path = AnswerPath(parsing: key), !path.instance.isEmpty,
                  logic.repeatChain(of: path.name).map(\.id) == path.instance.map(\.repeatID) else { continue }
            for length in 1...path.instance.count {
                let steps = Array(path.instance.prefix(length))
                if present.insert(AnswerPath.prefix(steps)).inserted { answered.append(steps) }
            }
        }
        var result: [Instance] = []
        var listed = Set<String>()
        func walk(_ nodes: [FormNode]) {
            for node in nodes {
                switch node {
                case .question:
                    continue
                case .group(_, _, let children):
                    walk(children)
                case .repeat(let group, _, let instances):
                    for instance in instances {
                        let prefix = AnswerPath.prefix(instance.instance)
                        guard present.contains(prefix) || logic.isRelevant(group: group, at: instance.instance, in: form, now: now) else { continue }
                        listed.insert(prefix)
                        result.append(Instance(group: group, steps: instance.instance))
                        walk(instance.children)
                    }
                }
            }
        }
        if logic.template.hasRepeats { walk(logic.layout(of: form, now: now)) }
        for steps in answered where !listed.contains(AnswerPath.prefix(steps)) {
            guard let last = steps.last, let group = logic.template.group(id: last.repeatID) else { continue }
            result.append(Instance(group: group, steps: steps))
        }
        instances = result
    }

    /// The questions that stand directly in `repeatID` (in groups inside it, but not in a repeat
    /// inside it), in the template's order; nil for the questions outside every repeat.
    public static func questions(of template: Template, in repeatID: String?) -> [Question] {
        template.questions.filter { template.repeatChain(of: $0).last?.id == repeatID }
    }
}
