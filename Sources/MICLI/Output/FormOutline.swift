import Foundation
import MIKit

/// A form as `mi review` and `mi fill`'s review show it: its answers in the order asked, each
/// numbered from 1 (a flat form's numbers are its questions'), under the headings of the groups
/// and repeat instances they stand in (`FormLogic.layout`).
struct FormOutline {
    enum Row {
        /// A group's label or a repeat instance's ("Pump 2 of 3"), `depth` groups deep (from 0);
        /// `relevant` false for a group or instance that is not relevant.
        case heading(String, depth: Int, relevant: Bool)
        /// An answer's place, its number, and how many groups deep it stands.
        case slot(AnswerSlot, number: Int, depth: Int)
    }

    var rows: [Row] = []

    init(_ form: Form, logic: FormLogic? = nil, now: Date = Date()) {
        guard !form.template.groups.isEmpty else {
            rows = form.template.questions.enumerated().map { .slot(AnswerSlot(question: $0.element, index: $0.offset), number: $0.offset + 1, depth: 0) }
            return
        }
        let logic = logic ?? FormLogic(template: form.template)
        var number = 0
        var rows: [Row] = []
        func walk(_ nodes: [FormNode], depth: Int) {
            for node in nodes {
                switch node {
                case .question(let slot):
                    number += 1
                    rows.append(.slot(slot, number: number, depth: depth))
                case .group(let group, let instance, let children):
                    rows.append(.heading(DisplayText.escaped(group.label), depth: depth,
                                         relevant: logic.isRelevant(group: group, at: instance, in: form, now: now)))
                    walk(children, depth: depth + 1)
                case .repeat(let group, let parent, let instances):
                    if instances.isEmpty {
                        let relevant = logic.isRelevant(group: group, at: parent + [InstanceStep(group.id, 1)], in: form, now: now)
                        rows.append(.heading("\(DisplayText.escaped(group.label)): no instance (\(AnswerPath.countKey(group.id, in: parent)))",
                                             depth: depth, relevant: relevant))
                    }
                    for instance in instances {
                        rows.append(.heading(Self.heading(group, number: instance.number, of: instances.count), depth: depth,
                                             relevant: logic.isRelevant(group: group, at: instance.instance, in: form, now: now)))
                        walk(instance.children, depth: depth + 1)
                    }
                }
            }
        }
        walk(logic.layout(of: form, now: now), depth: 0)
        self.rows = rows
    }

    /// A repeat instance's heading: "Pump 2 of 3" for a counted repeat, "Pump 2" for an open one.
    static func heading(_ group: QuestionGroup, number: Int, of count: Int) -> String {
        let label = DisplayText.escaped(group.label)
        return group.repeatCount == nil ? "\(label) \(number)" : "\(label) \(number) of \(count)"
    }

    /// The answers' places in order, numbered from 1.
    var slots: [AnswerSlot] {
        rows.compactMap { row in
            if case .slot(let slot, _, _) = row { return slot }
            return nil
        }
    }
}
