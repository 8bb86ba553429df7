import Foundation

/// What the office's editor is told about a draft as it is typed: every problem (the same
/// rules as `mi` reading a template file) and a preview drawn the way `mi fill` will ask it.
public struct TemplateDraftReport: Codable, Sendable, Equatable {
    /// One problem, naming the template, the question and the field as the template spells them.
    public struct Problem: Codable, Sendable, Equatable {
        /// The template's id (or where it came from, when it has no usable id).
        public var template: String
        /// The question's id, or `#n` for the n-th question without a usable id; absent for the template itself.
        public var question: String?
        /// The JSON key at fault; absent when the problem is the whole object.
        public var field: String?
        public var message: String
        /// The refusal's code when the problem is not the template's content but where it would
        /// be published (`TemplatePublishError.code`, e.g. `template-id-exists`).
        public var code: String?

        public init(template: String, question: String?, field: String?, message: String, code: String? = nil) {
            self.template = template
            self.question = question
            self.field = field
            self.message = message
            self.code = code
        }
    }

    public var problems: [Problem]
    /// The questions as `mi fill` asks them; questions that have problems say so instead.
    public var preview: String

    public init(problems: [Problem], preview: String) {
        self.problems = problems
        self.preview = preview
    }

    /// The problems of a `TemplateError`, each carrying the template's name.
    public static func problems(of error: TemplateError) -> [Problem] {
        error.problems.map { Problem(template: error.template, question: $0.question, field: $0.field, message: $0.message) }
    }
}

extension TemplateCoding {
    /// `draft` with its version set to `version`: the editor does not number versions, the
    /// server does when it publishes. Anything but an object is left for validation to refuse.
    public func numbered(_ draft: JSONValue, version: Int) -> JSONValue {
        guard case .object(var object) = draft else { return draft }
        object[keys[.version]] = .number(Double(version))
        return .object(object)
    }

    /// Validates a draft (already numbered) and previews it. A question that is valid on its
    /// own is previewed even when others are not, so the preview follows the typing.
    public func report(on draft: JSONValue, source: String) -> TemplateDraftReport {
        do {
            let template = try decode(draft, source: source)
            return TemplateDraftReport(problems: [], preview: Self.preview(of: template))
        } catch let error as TemplateError {
            return TemplateDraftReport(problems: TemplateDraftReport.problems(of: error), preview: partialPreview(of: draft))
        } catch {
            let problem = TemplateDraftReport.Problem(template: source, question: nil, field: nil, message: "\(error)")
            return TemplateDraftReport(problems: [problem], preview: "")
        }
    }

    /// The whole template as `mi fill` asks it, after a title line. The questions of a group or
    /// a repeat stand indented under its heading ("Pump [pumps] — repeated for each of
    /// ${npumps}"), and a condition that hides a question or a group is shown under its heading
    /// ("(asked only when ${running} = 'yes')").
    public static func preview(of template: Template) -> String {
        let count = template.questions.count
        let heading = "\(DisplayText.escaped(template.title)) (\(count) question\(count == 1 ? "" : "s"))"
        var blocks = [heading]
        func walk(_ items: [TemplateItem], depth: Int) {
            for item in items {
                switch item {
                case .question(let question, let index):
                    blocks.append(indented(questionPreview(question, index: index, count: count), depth: depth))
                case .group(let group, let children):
                    blocks.append(indented(groupHeading(kind: group.kind, id: group.id, text: group.text, relevant: group.relevant?.text,
                                                        count: group.repeatCount.map(countText)), depth: depth))
                    walk(children, depth: depth + 1)
                }
            }
        }
        walk(template.items, depth: 0)
        return blocks.joined(separator: "\n\n")
    }

    /// A question as `mi fill` first asks it, with the condition that hides it under its heading.
    static func questionPreview(_ question: Question, index: Int, count: Int) -> String {
        var lines = QuestionPrompt.preview(of: question, index: index, count: count).components(separatedBy: "\n")
        if let relevant = question.logic.relevant {
            lines.insert(relevanceLine(relevant.text), at: min(1, lines.count))
        }
        return lines.joined(separator: "\n")
    }

    static func relevanceLine(_ expression: String) -> String {
        "(asked only when \(DisplayText.escaped(expression)))"
    }

    /// A repeat count as the heading says it: `3`, or the expression.
    private static func countText(_ count: QuestionGroup.RepeatCount) -> PreviewCount {
        switch count {
        case .fixed(let number): return .fixed(number)
        case .expression(let expression): return .expression(expression.text)
        }
    }

    enum PreviewCount {
        case fixed(Int)
        case expression(String)
        /// A count the draft gives in a shape the check refuses (shown as written).
        case unreadable(String)
    }

    /// A group's or a repeat's heading: its label and id, how often a repeat is asked, and the
    /// condition that hides it.
    static func groupHeading(kind: QuestionGroup.Kind, id: String, text: String?, relevant: String?, count: PreviewCount?) -> String {
        let name = text.map { "\(DisplayText.escaped($0)) [\(DisplayText.escaped(id))]" } ?? "[\(DisplayText.escaped(id))]"
        var line: String
        switch kind {
        case .group:
            line = "\(name) — group"
        case .repeat:
            switch count {
            case nil: line = "\(name) — repeated as many times as needed"
            case .fixed(let number)?: line = "\(name) — repeated \(number) time\(number == 1 ? "" : "s")"
            case .expression(let text)?:
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                let single = trimmed.hasPrefix("${") && trimmed.hasSuffix("}") && trimmed.dropFirst(2).dropLast().allSatisfy { $0 != "}" && $0 != "$" }
                line = single ? "\(name) — repeated for each of \(DisplayText.escaped(trimmed))"
                    : "\(name) — repeated (\(DisplayText.escaped(trimmed))) times"
            case .unreadable(let text)?: line = "\(name) — repeated \(DisplayText.escaped(text)) times (not a count: see the problems)"
            }
        }
        if let relevant { line += "\n" + relevanceLine(relevant) }
        return line
    }

    static func indented(_ block: String, depth: Int) -> String {
        guard depth > 0 else { return block }
        let margin = String(repeating: "  ", count: depth)
        return block.components(separatedBy: "\n").map { margin + $0 }.joined(separator: "\n")
    }

    /// Each question alone, validated inside a template of its own, under the headings of the
    /// groups and repeats the draft nests it in (as written: the check names their problems).
    private func partialPreview(of draft: JSONValue) -> String {
        guard case .object(let object) = draft, case .array(let questions)? = object[keys[.questions]] else { return "" }
        func isGroup(_ element: JSONValue) -> QuestionGroup.Kind? {
            let type = element.objectValue?[keys[.type]]?.stringValue
            if type == keys[.group] { return .group }
            return type == keys[.repeat] ? .repeat : nil
        }
        func countQuestions(_ elements: [JSONValue]) -> Int {
            elements.reduce(0) { total, element in
                guard isGroup(element) != nil else { return total + 1 }
                if case .array(let inner)? = element.objectValue?[keys[.questions]] { return total + countQuestions(inner) }
                return total
            }
        }
        let count = countQuestions(questions)
        var index = 0
        var blocks: [String] = []
        func walk(_ elements: [JSONValue], depth: Int) {
            for element in elements {
                if let kind = isGroup(element), let group = element.objectValue {
                    let id = group[keys[.id]]?.stringValue ?? ""
                    let text = group[keys[.text]]?.stringValue.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
                    var repeatCount: PreviewCount?
                    switch group[keys[.repeatCount]] {
                    case nil, .null?: repeatCount = nil
                    case .number(let number)?:
                        repeatCount = JSONValue.number(number).integerValue.map(PreviewCount.fixed) ?? .unreadable(formatNumber(number))
                    case .string(let text)?: repeatCount = .expression(text)
                    case let value?: repeatCount = .unreadable(value.kindDescription)
                    }
                    blocks.append(Self.indented(Self.groupHeading(kind: kind, id: id, text: text, relevant: group[keys[.relevant]]?.stringValue,
                                                                  count: repeatCount), depth: depth))
                    if case .array(let inner)? = group[keys[.questions]] { walk(inner, depth: depth + 1) }
                    continue
                }
                let single = JSONValue.object([
                    keys[.id]: .string("preview"), keys[.title]: .string("preview"), keys[.version]: .number(1),
                    keys[.questions]: .array([element]),
                ])
                let block: String
                if let question = (try? decode(single, source: "preview"))?.questions.first {
                    block = Self.questionPreview(question, index: index, count: count)
                } else {
                    block = "Question \(index + 1) of \(count) — not shown until its problems are corrected"
                }
                blocks.append(Self.indented(block, depth: depth))
                index += 1
            }
        }
        walk(questions, depth: 0)
        return blocks.joined(separator: "\n\n")
    }
}
