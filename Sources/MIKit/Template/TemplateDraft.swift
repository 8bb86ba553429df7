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

    /// The whole template as `mi fill` asks it, after a title line.
    public static func preview(of template: Template) -> String {
        let count = template.questions.count
        let heading = "\(DisplayText.escaped(template.title)) (\(count) question\(count == 1 ? "" : "s"))"
        let questions = template.questions.enumerated().map {
            QuestionPrompt.preview(of: $0.element, index: $0.offset, count: count)
        }
        return ([heading] + questions).joined(separator: "\n\n")
    }

    /// Each question alone, validated inside a template of its own.
    private func partialPreview(of draft: JSONValue) -> String {
        guard case .object(let object) = draft, case .array(let questions)? = object[keys[.questions]] else { return "" }
        return questions.enumerated().map { index, element in
            let single = JSONValue.object([
                keys[.id]: .string("preview"), keys[.title]: .string("preview"), keys[.version]: .number(1),
                keys[.questions]: .array([element]),
            ])
            guard let question = (try? decode(single, source: "preview"))?.questions.first else {
                return "Question \(index + 1) of \(questions.count) — not shown until its problems are corrected"
            }
            return QuestionPrompt.preview(of: question, index: index, count: questions.count)
        }.joined(separator: "\n\n")
    }
}
