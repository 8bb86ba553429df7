import Foundation
import MIKit

/// Groups and repeats (`FormLogic.layout`): a group under its label, a repeat of simple questions
/// as one table (`FormLogic.repeatTable`: a row per instance, a column per question), any other repeat
/// as a section per instance ("Pump 2") with its questions, their media and its nested repeats,
/// each level set in a little. What is not relevant is printed and marked "not relevant". A flat
/// form is only questions, drawn exactly as before.
extension ReportComposer {
    static let notRelevant = "not relevant"
    /// How far a group's or an instance's content stands in from its heading.
    static let nesting = 12.0

    func nodes(_ nodes: [FormNode], logic: FormLogic) {
        for node in nodes {
            switch node {
            case .question(let slot):
                questionBlock(slot.question, number: slot.index + 1, key: slot.key, relevant: logic.isRelevant(slot, in: form))
            case .group(let group, let instance, let children):
                let relevant = logic.isRelevant(group: group, at: instance, in: form)
                keepTogether { groupHeading(group.label, relevant: relevant, style: .heading) }
                nested { self.nodes(children, logic: logic) }
            case .repeat(let group, let parent, let instances):
                repeatBlock(group, parent: parent, instances: instances, logic: logic)
            }
        }
    }

    private func repeatBlock(_ group: QuestionGroup, parent: [InstanceStep], instances: [RepeatInstance], logic: FormLogic) {
        let relevant = logic.isRelevant(group: group, at: parent, in: form)
        let title = "\(group.label) (\(instances.count))"
        if !instances.isEmpty, let table = logic.repeatTable(of: group, instances: instances, in: form) {
            keepTogether {
                groupHeading(title, relevant: relevant, style: .heading)
                repeatTable(table)
            }
            space(8)
            return
        }
        keepTogether {
            groupHeading(title, relevant: relevant, style: .heading)
            if instances.isEmpty { paragraph("none", style: .note, indent: Self.indent, after: 8) }
        }
        nested {
            for instance in instances {
                let instanceRelevant = logic.isRelevant(group: group, at: instance.instance, in: form)
                let path = String(AnswerPath.prefix(instance.instance).dropLast())
                keepTogether {
                    groupHeading("\(group.instanceLabel(instance.number))  ·  \(path)", relevant: instanceRelevant, style: .question)
                }
                nested { self.nodes(instance.children, logic: logic) }
            }
        }
    }

    /// A group's, a repeat's or an instance's heading, marked when it is not relevant.
    private func groupHeading(_ text: String, relevant: Bool, style: TextStyle) {
        paragraph(text, style: style, after: relevant ? 6 : 1)
        if !relevant { paragraph(Self.notRelevant, style: .note, after: 6) }
    }

    /// The repeat's instances as rows of a table (`table(rows:…)`), the cells of what is not
    /// relevant or not answered in grey words.
    private func repeatTable(_ repeated: RepeatTable) {
        var muted = Set<Cell>()
        var values: [[String?]] = []
        for (row, instance) in repeated.rows.enumerated() {
            values.append(instance.cells.enumerated().map { column, cell -> String? in
                var text: String
                switch cell.state {
                case .notRelevant:
                    muted.insert(Cell(row: row, column: column))
                    return Self.notRelevant
                case .noAnswer:
                    muted.insert(Cell(row: row, column: column))
                    text = "no answer"
                case .value(let value):
                    text = value
                }
                if let comment = cell.comment { text += "\nComment: \(comment)" }
                return text
            })
        }
        let rows = repeated.rows.map { $0.isRelevant ? $0.label : "\($0.label) (\(Self.notRelevant))" }
        table(rows: rows, columns: repeated.columns.map(\.text), noCells: [], values: values, muted: muted)
    }

    /// `body` set in by `nesting`.
    private func nested(_ body: () -> Void) {
        cursor.inset += Self.nesting
        body()
        cursor.inset -= Self.nesting
    }
}
