import Foundation

/// A question's form logic (issue 24): the XLSForm keys `relevant`, `constraint` with
/// `constraintMessage`, `required` with `requiredMessage`, `calculation`, `default`, `readOnly`
/// and `choiceFilter`, each expression parsed once when the template is read. A question with
/// none of them (`isEmpty`) behaves exactly as before they existed. `FormLogic` evaluates them.
public struct QuestionLogic: Sendable, Equatable {
    /// `required`: absent (the seed's answer-or-comment rule), `true`/`false`, or an expression.
    public enum Requirement: Sendable, Equatable {
        case unset
        case always(Bool)
        case when(Expression)
    }

    public var relevant: Expression?
    public var constraint: Expression?
    public var constraintMessage: String?
    public var required: Requirement
    public var requiredMessage: String?
    public var calculation: Expression?
    /// The answer a new form starts with, as `mi answer` would type it.
    public var defaultValue: String?
    public var readOnly: Bool
    /// Read with each option's attributes (`region`, `name`, `label`) written bare, as XLSForm
    /// writes them; `choiceFilterText` is the filter as the template wrote it.
    public var choiceFilter: Expression?
    public var choiceFilterText: String?

    public init(relevant: Expression? = nil, constraint: Expression? = nil, constraintMessage: String? = nil,
                required: Requirement = .unset, requiredMessage: String? = nil, calculation: Expression? = nil,
                defaultValue: String? = nil, readOnly: Bool = false, choiceFilter: Expression? = nil) {
        self.relevant = relevant
        self.constraint = constraint
        self.constraintMessage = constraintMessage
        self.required = required
        self.requiredMessage = requiredMessage
        self.calculation = calculation
        self.defaultValue = defaultValue
        self.readOnly = readOnly
        self.choiceFilter = choiceFilter
        self.choiceFilterText = choiceFilter?.text
    }

    public static let none = QuestionLogic()

    public var isEmpty: Bool { self == .none }

    /// Whether the technician answers the question (not a computed or read-only one).
    public var isAnsweredByHand: Bool { calculation == nil && !readOnly }

    /// Every expression with the key it stands under, in the order the keys are documented.
    public var expressions: [(key: TemplateKeys.Key, expression: Expression)] {
        var result: [(key: TemplateKeys.Key, expression: Expression)] = []
        if let relevant { result.append((.relevant, relevant)) }
        if let constraint { result.append((.constraint, constraint)) }
        if case .when(let expression) = required { result.append((.required, expression)) }
        if let calculation { result.append((.calculation, calculation)) }
        if let choiceFilter { result.append((.choiceFilter, choiceFilter)) }
        return result
    }

    /// The keys, in template order.
    static let keys: [TemplateKeys.Key] = [.relevant, .constraint, .constraintMessage, .required, .requiredMessage,
                                           .calculation, .defaultValue, .readOnly, .choiceFilter]

    /// How the office editor edits the logic keys of a question of `type`: every key, in the
    /// order they are documented; `choiceFilter` only where the type has options to filter.
    /// The editor draws them after the type's own `editorFields`, and `/templates/check` (this
    /// same parser) judges what is typed.
    public static func editorFields(for type: any QuestionType.Type) -> [EditorField] {
        var fields = [
            EditorField(.relevant, .expression, "Relevant (asked only when)", placeholder: "${leak} = 'yes'"),
            EditorField(.constraint, .expression, "Constraint (the answer . must meet)", placeholder: ". >= 0 and . <= 16"),
            EditorField(.constraintMessage, .text, "Constraint message"),
            EditorField(.required, .condition, "Required (true, false or an expression)", placeholder: "true"),
            EditorField(.requiredMessage, .text, "Required message"),
            EditorField(.calculation, .expression, "Calculation", placeholder: "${a} * 2"),
            EditorField(.defaultValue, .text, "Default answer"),
            EditorField(.readOnly, .flag, "Read only"),
        ]
        if type.editorFields.contains(where: { $0.input == .options }) {
            fields.append(EditorField(.choiceFilter, .expression, "Choice filter (option attributes by bare name)",
                                      placeholder: "region = ${region}"))
        }
        return fields
    }

    /// How a choice filter names an option's attribute once read: `${_option_.region}`.
    public static let optionPrefix = "_option_."

    /// A choice filter with its bare names (an option's attributes: `region = ${region}`)
    /// written as references `${_option_.region}`, which `FormLogic` resolves to the option's
    /// attribute; strings, `${…}`, function names and `and`/`or`/`div`/`mod` are left alone.
    static func optionReferences(_ text: String) -> String {
        let characters = Array(text)
        var result = ""
        var index = 0
        func isNameStart(_ c: Character) -> Bool { c == "_" || (c.isASCII && c.isLetter) }
        func isNamePart(_ c: Character) -> Bool { isNameStart(c) || (c.isASCII && c.isNumber) }
        while index < characters.count {
            let c = characters[index]
            if c == "'" || c == "\"" {
                var end = index + 1
                while end < characters.count, characters[end] != c { end += 1 }
                result += String(characters[index..<min(end + 1, characters.count)])
                index = end + 1
            } else if c == "$", index + 1 < characters.count, characters[index + 1] == "{" {
                var end = index
                while end < characters.count, characters[end] != "}" { end += 1 }
                result += String(characters[index..<min(end + 1, characters.count)])
                index = end + 1
            } else if isNameStart(c), index == 0 || !(isNamePart(characters[index - 1]) || characters[index - 1] == ".") {
                var end = index
                while end < characters.count, isNamePart(characters[end]) { end += 1 }
                let word = String(characters[index..<end])
                var next = end
                while next < characters.count, characters[next].isWhitespace { next += 1 }
                let isCall = next < characters.count && characters[next] == "("
                if isCall || ["and", "or", "div", "mod"].contains(word) { result += word } else { result += "${\(optionPrefix)\(word)}" }
                index = end
            } else {
                result.append(c)
                index += 1
            }
        }
        return result
    }

    // MARK: - Reading and writing

    /// The expression under `key`, parsed (nil when absent); a problem names the key and the
    /// position in the expression.
    static func expression(_ object: [String: JSONValue], _ key: TemplateKeys.Key, label: String,
                           validator: inout TemplateValidator) -> Expression? {
        guard let value = object[validator.keys[key]], value != .null else { return nil }
        guard let text = value.stringValue, !BlankText.isBlankOrNewlines(text) else {
            validator.problem(label, key, "expected an expression in a string, found \(validator.describe(value))")
            return nil
        }
        do {
            return try Expression(text, limits: .standard)
        } catch {
            validator.problem(label, key, "\(error) in \"\(DisplayText.escaped(text))\"")
            return nil
        }
    }

    static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> QuestionLogic {
        var logic = QuestionLogic()
        func expression(_ key: TemplateKeys.Key) -> Expression? {
            Self.expression(object, key, label: label, validator: &validator)
        }
        func text(_ key: TemplateKeys.Key) -> String? {
            guard let value = object[validator.keys[key]], value != .null else { return nil }
            let keyName = validator.keys[key]
            guard let (text, translations) = validator.localizedText(value, label, key, field: keyName) else { return nil }
            for (language, translation) in translations {
                if key == .constraintMessage { validator.questionTranslations[language, default: QuestionTexts()].constraintMessage = translation }
                if key == .requiredMessage { validator.questionTranslations[language, default: QuestionTexts()].requiredMessage = translation }
            }
            return text
        }
        logic.relevant = expression(.relevant)
        logic.constraint = expression(.constraint)
        logic.constraintMessage = text(.constraintMessage)
        switch object[validator.keys[.required]] {
        case nil, .null?: break
        case .bool(let value)?: logic.required = .always(value)
        case .string?: if let parsed = expression(.required) { logic.required = .when(parsed) }
        case let value?: validator.problem(label, .required, "expected true, false or an expression, found \(validator.describe(value))")
        }
        logic.requiredMessage = text(.requiredMessage)
        logic.calculation = expression(.calculation)
        switch object[validator.keys[.defaultValue]] {
        case nil, .null?: break
        case .string(let text)?: logic.defaultValue = text
        case .number(let number)?: logic.defaultValue = formatNumber(number)
        case .bool(let flag)?: logic.defaultValue = flag ? "true" : "false"
        case let value?: validator.problem(label, .defaultValue, "expected the answer as text, found \(value.kindDescription)")
        }
        switch object[validator.keys[.readOnly]] {
        case nil, .null?: break
        case .bool(let value)?: logic.readOnly = value
        case let value?: validator.problem(label, .readOnly, "expected true or false, found \(value.kindDescription)")
        }
        if let value = object[validator.keys[.choiceFilter]], value != .null {
            if let text = value.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                do {
                    logic.choiceFilter = try Expression(Self.optionReferences(text), limits: .standard)
                    logic.choiceFilterText = text
                } catch {
                    validator.problem(label, .choiceFilter, "\(error) in \"\(DisplayText.escaped(Self.optionReferences(text)))\"")
                }
            } else {
                validator.problem(label, .choiceFilter, "expected an expression in a string, found \(validator.describe(value))")
            }
        }
        if logic.constraintMessage != nil, logic.constraint == nil, object[validator.keys[.constraint]] == nil {
            validator.problem(label, .constraintMessage, "there is no \"\(validator.keys[.constraint])\" to give a message for")
        }
        return logic
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        if let relevant { object[keys[.relevant]] = .string(relevant.text) }
        if let constraint { object[keys[.constraint]] = .string(constraint.text) }
        if let constraintMessage { object[keys[.constraintMessage]] = .string(constraintMessage) }
        switch required {
        case .unset: break
        case .always(let value): object[keys[.required]] = .bool(value)
        case .when(let expression): object[keys[.required]] = .string(expression.text)
        }
        if let requiredMessage { object[keys[.requiredMessage]] = .string(requiredMessage) }
        if let calculation { object[keys[.calculation]] = .string(calculation.text) }
        if let defaultValue { object[keys[.defaultValue]] = .string(defaultValue) }
        if readOnly { object[keys[.readOnly]] = .bool(true) }
        if let choiceFilterText { object[keys[.choiceFilter]] = .string(choiceFilterText) }
    }
}

extension TemplateKeys.Key {
    public static let relevant = Self("relevant"), constraint = Self("constraint")
    public static let constraintMessage = Self("constraintMessage"), required = Self("required")
    public static let requiredMessage = Self("requiredMessage"), calculation = Self("calculation")
    public static let defaultValue = Self("default"), readOnly = Self("readOnly"), choiceFilter = Self("choiceFilter")
}
