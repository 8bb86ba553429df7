import Foundation

/// A repeat of simple questions laid out as a table, the way the office submission page and the
/// PDF draw it: one row per instance, one column per question (its text the header). One rule
/// for both readers: a repeat is a table when every item inside is a question that fits a cell
/// (`Question.fitsTableCell`) — no group, no nested repeat — and no answer of this form's
/// instances carries media (they would have no place in a cell: such a repeat is drawn as
/// sections, one per instance, with each question's media in its place).
public struct RepeatTable: Sendable {
    /// What one cell shows.
    public enum CellState: Sendable, Equatable {
        /// The question is not relevant in this instance (its repeat's or its own `relevant`).
        case notRelevant
        /// Relevant, without a value (a comment may still be there).
        case noAnswer
        /// The value as one text.
        case value(String)
    }

    public struct Cell: Sendable {
        public var slot: AnswerSlot
        public var state: CellState
        /// The technician's comment on the answer, when there is one.
        public var comment: String?
        /// Whether the answer is still open by the form's rules (`FormLogic.isDone`).
        public var isDone: Bool
    }

    public struct Row: Sendable {
        public var instance: RepeatInstance
        /// "Pump 2": the repeat's label and the instance's number.
        public var label: String
        /// Whether the instance itself is relevant (its repeat and the groups around it).
        public var isRelevant: Bool
        public var cells: [Cell]
    }

    public var group: QuestionGroup
    public var columns: [Question]
    public var rows: [Row]
}

extension Question {
    /// Whether its answer fits one table cell: it takes an answer, answered on one line (not a
    /// table), not with attached files (a photo), and shows no picture.
    public var fitsTableCell: Bool {
        type.takesAnswer && type.grid == nil && type.answerMedia == nil && image == nil
    }
}

extension AnswerShape {
    /// The answer as one cell's text; nil for a shape that does not fit a cell (a grid, a note,
    /// attached files).
    public var cellText: String? {
        switch self {
        case .text(let text): return text
        case .yesNo(let yes): return yes ? "Yes" : "No"
        case .choices(let list): return list.chosen.joined(separator: ", ")
        case .location(let point): return point.typedString
        case .grid, .note, .media: return nil
        }
    }
}

extension QuestionGroup {
    /// "Pump 2": what an instance of the repeat is called.
    public func instanceLabel(_ number: Int) -> String { "\(label) \(number)" }
}

extension FormLogic {
    /// The repeat `group` with its `instances` (from `layout(of:)`) as a table, or nil when it is
    /// to be drawn as sections (see `RepeatTable`).
    public func repeatTable(of group: QuestionGroup, instances: [RepeatInstance], in form: Form, now: Date = Date()) -> RepeatTable? {
        guard group.isRepeat, let items = template.items(of: group.id) else { return nil }
        var columns: [Question] = []
        for item in items {
            switch item {
            case .question(let question, _):
                guard question.fitsTableCell else { return nil }
                columns.append(question)
            case .group:
                return nil
            }
        }
        guard !columns.isEmpty else { return nil }
        var rows: [RepeatTable.Row] = []
        for instance in instances {
            var cells: [RepeatTable.Cell] = []
            for node in instance.children {
                guard case .question(let slot) = node else { return nil }
                let answer = form.answer(for: slot.key)
                guard answer.media.isEmpty else { return nil }
                let state: RepeatTable.CellState
                if !isRelevant(slot, in: form, now: now) {
                    state = .notRelevant
                } else if answer.value != nil, let text = slot.question.type.presentation(of: answer)?.cellText {
                    state = .value(text)
                } else {
                    state = .noAnswer
                }
                let comment = answer.comment.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
                cells.append(RepeatTable.Cell(slot: slot, state: state, comment: comment, isDone: isDone(slot, in: form, now: now)))
            }
            rows.append(RepeatTable.Row(instance: instance, label: group.instanceLabel(instance.number),
                                        isRelevant: isRelevant(group: group, at: instance.instance, in: form, now: now), cells: cells))
        }
        return RepeatTable(group: group, columns: columns, rows: rows)
    }
}

extension Template {
    /// What the group or repeat `id` holds, from `items`; nil when there is no such group.
    public func items(of id: String) -> [TemplateItem]? {
        func find(_ items: [TemplateItem]) -> [TemplateItem]? {
            for item in items {
                switch item {
                case .question: continue
                case .group(let group, let children):
                    if group.id == id { return children }
                    if let found = find(children) { return found }
                }
            }
            return nil
        }
        return find(self.items)
    }
}
