import Foundation

/// A template in several languages (issue 25): any text — the title, a question's text, help,
/// constraint and required messages and image, an option's label, a group's label — may be a
/// string or an object of language → text (`{"Español (es)": "Presión", "English (en)":
/// "Pressure"}`), with the template's `defaultLanguage` naming the one every such object must
/// have. The fields that have always held text (`Question.text`, `Choice.label`, …) hold the
/// default language's, so a reader that knows nothing of languages reads the template as
/// before; `localized(to:)` gives the template as it reads in another language.
public struct QuestionTexts: Sendable, Equatable {
    public var text: String?
    public var help: String?
    public var constraintMessage: String?
    public var requiredMessage: String?
    public var image: String?

    public init(text: String? = nil, help: String? = nil, constraintMessage: String? = nil, requiredMessage: String? = nil,
                image: String? = nil) {
        self.text = text
        self.help = help
        self.constraintMessage = constraintMessage
        self.requiredMessage = requiredMessage
        self.image = image
    }
}

extension TemplateKeys.Key {
    public static let defaultLanguage = Self("defaultLanguage")
}

extension Template {
    /// Every language the template is written in: the default first, then the others in order.
    public var languages: [String] {
        var found: Set<String> = Set(titleTranslations.keys)
        for question in questions {
            found.formUnion(question.translations.keys)
            for choice in question.type.filterableChoices ?? [] { found.formUnion(choice.labels.keys) }
        }
        for group in groups { found.formUnion(group.labels.keys) }
        guard let defaultLanguage else { return found.sorted() }
        found.remove(defaultLanguage)
        return [defaultLanguage] + found.sorted()
    }

    /// The template's language that `requested` names: the exact name, or case aside, or the
    /// code in its parentheses (`es` for `Español (es)`), or a locale such as `LANG`'s
    /// `es_MX.UTF-8` (its language part); nil when none matches.
    public func language(matching requested: String) -> String? {
        let wanted = requested.trimmingCharacters(in: .whitespaces)
        guard !wanted.isEmpty else { return nil }
        let all = languages
        if all.contains(wanted) { return wanted }
        if let same = all.first(where: { $0.caseInsensitiveCompare(wanted) == .orderedSame }) { return same }
        func code(_ name: String) -> String? {
            guard let open = name.lastIndex(of: "("), name.hasSuffix(")") else { return nil }
            return String(name[name.index(after: open)..<name.index(before: name.endIndex)]).lowercased()
        }
        let locale = wanted.split(whereSeparator: { $0 == "." || $0 == "@" }).first.map(String.init) ?? wanted
        let candidates = [locale.lowercased(), locale.split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map { $0.lowercased() } ?? ""]
        for candidate in candidates where !candidate.isEmpty {
            if let match = all.first(where: { code($0) == candidate || $0.lowercased() == candidate }) { return match }
        }
        return nil
    }

    /// The template as it reads in `language` (one of `languages`): every text that has a
    /// translation replaced by it, the others left in the default language. The answers'
    /// names, ids and logic are the same, so a form filled in one language is the same form.
    public func localized(to language: String?) -> Template {
        guard let language, language != defaultLanguage, languages.contains(language) else { return self }
        var copy = self
        if let title = titleTranslations[language] { copy.title = title }
        copy.questions = questions.map { question in
            var localized = question
            if let texts = question.translations[language] {
                if let text = texts.text { localized.text = text }
                if let help = texts.help { localized.help = help }
                if let image = texts.image { localized.image = image }
                if let message = texts.constraintMessage { localized.logic.constraintMessage = message }
                if let message = texts.requiredMessage { localized.logic.requiredMessage = message }
            }
            localized.kind = Question.Kind(question.type.localized(to: language))
            return localized
        }
        copy.groups = groups.map { group in
            var localized = group
            if let label = group.labels[language] { localized.text = label }
            return localized
        }
        return copy
    }
}

extension Form {
    /// The form as it reads in its language (or in `language`, one of its template's, when
    /// given): its template copy's texts translated, the answers the same. For display only — a
    /// form is saved and sent with the template as it was published.
    public func shown(in language: String? = nil) -> Form {
        let chosen = language.flatMap { template.language(matching: $0) } ?? self.language
        guard chosen != nil, chosen != template.defaultLanguage else { return self }
        var copy = self
        copy.template = template.localized(to: chosen)
        return copy
    }
}

extension TemplateValidator {
    /// A text that may be a string or an object of language → text: the default language's text
    /// and the translations (every language's, the default's included; empty for a plain
    /// string). An object needs the template's `defaultLanguage` and a text in it.
    mutating func localizedText(_ value: JSONValue, _ question: String?, _ key: TemplateKeys.Key, field: @autoclosure () -> String,
                                allowNewlines: Bool = false) -> (text: String, translations: [String: String])? {
        switch value {
        case .string(let text):
            guard !BlankText.isBlankOrNewlines(text) else { problem(question, key, "empty"); return nil }
            checkText(text, question, key, field: field(), allowNewlines: allowNewlines)
            return (text, [:])
        case .object(let texts):
            guard let defaultLanguage else {
                problem(question, key, "a text in several languages needs the template's \"\(keys[.defaultLanguage])\" (one of \(texts.keys.sorted().map { "\"\(DisplayText.escaped($0))\"" }.joined(separator: ", ")))")
                return nil
            }
            // The usual object, every text fine, is taken as it is; otherwise each language in
            // order, so the problems come in the order of their names.
            let fine = texts.allSatisfy { language, text in
                guard let string = text.stringValue, !BlankText.isBlankOrNewlines(string), !BlankText.isBlank(language) else { return false }
                return !refusesControlCharacters || !TextRules.mayHoldControl(string)
            }
            if fine, let text = texts[defaultLanguage]?.stringValue {
                return (text, texts.mapValues { $0.stringValue ?? "" })
            }
            var translations: [String: String] = [:]
            for (language, text) in texts.sorted(by: { $0.key < $1.key }) {
                guard let string = text.stringValue, !BlankText.isBlankOrNewlines(string) else {
                    problem(question, key, "the \(DisplayText.escaped(language)) text must be a non-empty string, found \(describe(text))")
                    continue
                }
                if BlankText.isBlank(language) {
                    problem(question, key, "a language name is empty")
                    continue
                }
                checkText(string, question, key, field: "\(field()) (\(language))", allowNewlines: allowNewlines)
                translations[language] = string
            }
            guard let text = translations[defaultLanguage] else {
                problem(question, key, "no text in the default language \"\(DisplayText.escaped(defaultLanguage))\"")
                return nil
            }
            return (text, translations)
        default:
            problem(question, key, "expected a string (or an object of language → text), found \(value.kindDescription)")
            return nil
        }
    }
}

extension TemplateCoding {
    /// A text with its translations as template JSON: the string alone, or the object of every
    /// language with `text` as the default language's.
    static func localized(_ text: String, _ translations: [String: String], defaultLanguage: String?) -> JSONValue {
        guard !translations.isEmpty, let defaultLanguage else { return .string(text) }
        var all = translations
        all[defaultLanguage] = text
        return .object(all.mapValues(JSONValue.string))
    }
}
