import Foundation

/// Reads and writes templates in JSON with the key names of a `TemplateKeys`, validating as it reads.
public struct TemplateCoding: Sendable {
    public var keys: TemplateKeys
    /// Whether every text of the template — title, question texts, help, options, table labels
    /// (the consent text always is) — must be free of control characters (`TextRules`, as
    /// answers are): set where a template is published (the office's editor and upload). Templates read from where they
    /// are kept (a cache, a form's copy, a server's folder) are taken as they are, and `mi`
    /// prints their texts escaped (`DisplayText`), so a form started from one stays readable.
    public var refusesControlCharacters: Bool

    public init(keys: TemplateKeys = .default, refusesControlCharacters: Bool = false) {
        self.keys = keys
        self.refusesControlCharacters = refusesControlCharacters
    }

    /// Parses and validates template JSON. `source` names it in messages until its id is known.
    public func decode(_ data: Data, source: String) throws -> Template {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch let error as DecodingError {
            throw TemplateError(template: source, problems: [.init(message: "not valid JSON: \(error.summary)")])
        }
        return try decode(json, source: source)
    }

    public func decode(_ json: JSONValue, source: String) throws -> Template {
        var validator = TemplateValidator(keys: keys, refusesControlCharacters: refusesControlCharacters)
        let template = validator.template(json)
        let name = validator.templateID ?? source
        guard validator.problems.isEmpty, let template else {
            throw TemplateError(template: name, problems: validator.problems)
        }
        return template
    }

    /// The template as JSON with these key names.
    public func encode(_ template: Template) -> JSONValue {
        var object: [String: JSONValue] = [
            keys[.id]: .string(template.id),
            keys[.title]: Self.localized(template.title, template.titleTranslations, defaultLanguage: template.defaultLanguage),
            keys[.version]: .number(Double(template.version)),
            keys[.questions]: .array(encodeItems(template)),
        ]
        if let scoring = template.scoring { object[keys[.scoring]] = .string(scoring.rawValue) }
        if template.oncePerUser { object[keys[.oncePerUser]] = .bool(true) }
        if let consent = template.consent { object[keys[.consent]] = .string(consent) }
        if template.captureLocation { object[keys[.captureLocation]] = .bool(true) }
        if let language = template.defaultLanguage { object[keys[.defaultLanguage]] = .string(language) }
        return .object(object)
    }

    public func encodeData(_ template: Template) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(encode(template))
    }

    /// The questions with their groups and repeats nested as the template wrote them.
    private func encodeItems(_ template: Template) -> [JSONValue] {
        func encode(_ item: TemplateItem) -> JSONValue {
            switch item {
            case .question(let question, _): return self.encode(question, defaultLanguage: template.defaultLanguage)
            case .group(let group, let items):
                var object: [String: JSONValue] = [
                    keys[.id]: .string(group.id),
                    keys[.type]: .string(keys[group.isRepeat ? .repeat : .group]),
                    keys[.questions]: .array(items.map(encode)),
                ]
                if let text = group.text { object[keys[.text]] = Self.localized(text, group.labels, defaultLanguage: template.defaultLanguage) }
                if let relevant = group.relevant { object[keys[.relevant]] = .string(relevant.text) }
                switch group.repeatCount {
                case nil: break
                case .fixed(let count)?: object[keys[.repeatCount]] = .number(Double(count))
                case .expression(let expression)?: object[keys[.repeatCount]] = .string(expression.text)
                }
                return .object(object)
            }
        }
        return template.items.map(encode)
    }

    private func encode(_ question: Question, defaultLanguage: String?) -> JSONValue {
        func texts(_ field: KeyPath<QuestionTexts, String?>) -> [String: String] { question.translations.compactMapValues { $0[keyPath: field] } }
        var object: [String: JSONValue] = [keys[.id]: .string(question.id),
                                           keys[.text]: Self.localized(question.text, texts(\.text), defaultLanguage: defaultLanguage)]
        if let help = question.help { object[keys[.help]] = Self.localized(help, texts(\.help), defaultLanguage: defaultLanguage) }
        if let image = question.image { object[keys[.image]] = Self.localized(image, texts(\.image), defaultLanguage: defaultLanguage) }
        object[keys[.type]] = .string(keys[question.type.typeKey])
        question.type.encode(into: &object, keys: keys)
        question.logic.encode(into: &object, keys: keys)
        if let message = question.logic.constraintMessage {
            object[keys[.constraintMessage]] = Self.localized(message, texts(\.constraintMessage), defaultLanguage: defaultLanguage)
        }
        if let message = question.logic.requiredMessage {
            object[keys[.requiredMessage]] = Self.localized(message, texts(\.requiredMessage), defaultLanguage: defaultLanguage)
        }
        return .object(object)
    }
}

/// Walks template JSON, collecting every problem with the question and field it belongs to.
/// Question types read their own keys through it (`QuestionType.decode`).
public struct TemplateValidator: Sendable {
    /// The key names the template is read with.
    public let keys: TemplateKeys
    let refusesControlCharacters: Bool
    var problems: [TemplateError.Problem] = []
    var templateID: String?
    /// The template's `defaultLanguage`, read before anything else: texts in several languages need it.
    var defaultLanguage: String?
    /// The question's texts in each language, gathered while it is read (`QuestionLogic`'s messages too).
    var questionTranslations: [String: QuestionTexts] = [:]

    /// The question types by their name under `keys`.
    private let types: [String: any QuestionType.Type]

    /// Templates of at least this many entries (questions, groups and repeats, nested ones
    /// included) are read in two halves at once (`topLevelItems`).
    let entriesReadInHalves: Int

    init(keys: TemplateKeys, refusesControlCharacters: Bool, entriesReadInHalves: Int = 256) {
        self.keys = keys
        self.refusesControlCharacters = refusesControlCharacters
        self.entriesReadInHalves = entriesReadInHalves
        types = QuestionTypes.byName(keys: keys)
    }

    /// Records a problem with `question` (nil: the template) and its `key`.
    public mutating func problem(_ question: String?, _ key: TemplateKeys.Key?, _ message: String) {
        problems.append(.init(question: question, field: key.map { keys[$0] }, message: message))
    }

    /// `TextRules`' control-character rule on one text, when this coding refuses them (or
    /// `always`); `field` names the text in the message ("title", "option 2").
    /// `field` is worked out only for a message: most texts pass.
    public mutating func checkText(_ text: String, _ question: String?, _ key: TemplateKeys.Key, field: @autoclosure () -> String,
                            allowNewlines: Bool = false, always: Bool = false) {
        guard refusesControlCharacters || always else { return }
        if !TextRules.mayHoldControl(text) { return }
        do {
            try TextRules.check(text, field: field(), allowNewlines: allowNewlines)
        } catch {
            problem(question, key, error.localizedDescription.replacingOccurrences(of: "; nothing was saved", with: ""))
        }
    }

    mutating func template(_ json: JSONValue) -> Template? {
        guard let object = json.objectValue else {
            problem(nil, nil, "expected a JSON object, found \(json.kindDescription)")
            return nil
        }
        let id = string(object, .id, question: nil)
        if let id {
            templateID = id
            if let reason = SafeName.problem(id) { problem(nil, .id, "\"\(SafeName.printable(id))\" cannot be a template id: \(reason)") }
        }
        switch object[keys[.defaultLanguage]] {
        case nil, .null?: break
        case .string(let language)? where !BlankText.isBlank(language): defaultLanguage = language
        case let value?: problem(nil, .defaultLanguage, "expected a language name, found \(describe(value))")
        }
        var title: String?
        var titleTranslations: [String: String] = [:]
        if let value = object[keys[.title]] {
            if let localized = localizedText(value, nil, .title, field: "title") { (title, titleTranslations) = localized }
        } else {
            problem(nil, .title, "missing")
        }
        var version: Int?
        switch object[keys[.version]] {
        case nil: problem(nil, .version, "missing")
        case let value?:
            if let integer = value.integerValue, integer >= 0 { version = integer } else {
                problem(nil, .version, "expected a whole number of at least 0, found \(describe(value))")
            }
        }
        var questions: [Question] = []
        var groups: [QuestionGroup] = []
        switch object[keys[.questions]] {
        case nil: problem(nil, .questions, "missing")
        case .array(let array)?:
            if array.isEmpty { problem(nil, .questions, "a template needs at least one question") }
            topLevelItems(array, questions: &questions, groups: &groups)
        case let value?: problem(nil, .questions, "expected an array, found \(value.kindDescription)")
        }
        var scoring: Scoring?
        switch object[keys[.scoring]] {
        case nil, .null?: break
        case .string(let name)? where Scoring(rawValue: name) != nil: scoring = Scoring(rawValue: name)
        case let value?:
            let known = Scoring.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            problem(nil, .scoring, "unknown scorer \(describe(value)) (known: \(known))")
        }
        var oncePerUser = false
        switch object[keys[.oncePerUser]] {
        case nil, .null?: break
        case .bool(let value)?: oncePerUser = value
        case let value?: problem(nil, .oncePerUser, "expected true or false, found \(value.kindDescription)")
        }
        var captureLocation = false
        switch object[keys[.captureLocation]] {
        case nil, .null?: break
        case .bool(let value)?: captureLocation = value
        case let value?: problem(nil, .captureLocation, "expected true or false, found \(value.kindDescription)")
        }
        var consent: String?
        switch object[keys[.consent]] {
        case nil, .null?: break
        case .string(let text)?:
            if BlankText.isBlankOrNewlines(text) {
                problem(nil, .consent, "empty (leave the key out when there is no consent to accept)")
            } else {
                let before = problems.count
                // Always: the consent text has been held to the rule wherever it is read, since
                // the respondent's acceptance is for exactly these bytes.
                checkText(text, nil, .consent, field: "consent text", allowNewlines: true, always: true)
                if problems.count == before { consent = text }
            }
        case let value?: problem(nil, .consent, "expected a string, found \(value.kindDescription)")
        }
        guard let id, let title, let version else { return nil }
        let template = Template(id: id, title: title, version: version, questions: questions, scoring: scoring,
                                oncePerUser: oncePerUser, consent: consent, captureLocation: captureLocation, groups: groups,
                                defaultLanguage: defaultLanguage, titleTranslations: titleTranslations)
        if problems.isEmpty { checkLogic(template) }
        if let scoring, problems.isEmpty {
            for (question, message) in scoring.problems(in: template) { problem(question, .scoring, message) }
        }
        return template
    }

    /// The template's own `questions` array. A large template is read in two halves, one per
    /// core, each by a copy of this validator; when no id stands in both halves, the halves'
    /// questions, groups and problems put together are exactly what one pass in order gives.
    /// When one does (a duplicate across the halves), the template is read again in one pass, so
    /// the problems come in the same order whatever the template's size.
    mutating func topLevelItems(_ array: [JSONValue], questions: inout [Question], groups: inout [QuestionGroup]) {
        if let split = halves(of: array), var read = readInHalves(array, at: split) {
            problems += read.0.validator.problems + read.1.validator.problems
            // The first half's arrays are taken as they are (a question is a large value, and
            // copying one costs a count on every text it holds); the second's follow them.
            if questions.isEmpty { swap(&questions, &read.0.questions) } else { questions += read.0.questions }
            questions += read.1.questions
            if groups.isEmpty { swap(&groups, &read.0.groups) } else { groups += read.0.groups }
            groups += read.1.groups
        } else {
            var seen: Set<String> = []
            items(array, in: nil, questions: &questions, groups: &groups, seen: &seen)
        }
    }

    /// `array[..<split]` and `array[split...]` read at once, each by a copy of this validator
    /// (the template's header already read) starting with no problems of its own; nil when an
    /// id stands in both halves.
    private func readInHalves(_ array: [JSONValue], at split: Int) -> (Half, Half)? {
        var reader = self
        reader.problems = []
        let base = reader
        let slots = Slots<Half>(count: 2)
        WorkPieces.run([0..<split, split..<array.count]) { piece, range in
            var half = Half(validator: base)
            half.validator.items(Array(array[range]), in: nil, questions: &half.questions, groups: &half.groups, seen: &half.seen,
                                 positionsFrom: range.lowerBound)
            slots.set(piece, half)
        }
        let read = slots.values()
        let (smaller, larger) = read[0].seen.count <= read[1].seen.count ? (read[0].seen, read[1].seen) : (read[1].seen, read[0].seen)
        return smaller.contains(where: larger.contains) ? nil : (read[0], read[1])
    }

    /// Where the template's `questions` array is cut to be read in halves, each holding about
    /// half its entries; nil when it is read in one pass (too few entries, or one item holds most).
    func halves(of array: [JSONValue]) -> Int? {
        let weights = array.map { entries($0) }
        let total = weights.reduce(0, +)
        guard total >= entriesReadInHalves else { return nil }
        var split = 0
        var before = 0
        while split < array.count - 1, before + weights[split] <= total / 2 {
            before += weights[split]
            split += 1
        }
        return split > 0 ? split : nil
    }

    /// How many entries an item of a `questions` array holds: 1, and a group's or repeat's own.
    private func entries(_ item: JSONValue) -> Int {
        guard case .array(let nested)? = item.objectValue?[keys[.questions]] else { return 1 }
        return nested.reduce(1) { $0 + entries($1) }
    }

    /// What one half of a template's entries gave its reader.
    private struct Half {
        var validator: TemplateValidator
        var questions: [Question] = []
        var groups: [QuestionGroup] = []
        var seen: Set<String> = []
    }

    /// The entries of a `questions` array (of the template, a group or a repeat): questions,
    /// and groups and repeats read with their own questions, in order. Ids are unique across
    /// the whole template, questions and groups alike. `positionsFrom`: how many entries of the
    /// same array come before these (a half of the template's), for the positions in messages.
    mutating func items(_ array: [JSONValue], in parent: QuestionGroup?, questions: inout [Question],
                        groups: inout [QuestionGroup], seen: inout Set<String>, positionsFrom offset: Int = 0) {
        for (position, element) in array.enumerated() {
            let index = offset + position
            // The id is compared before the rest is read, so a repeated id is reported even
            // while the question has other problems (an empty text, say).
            if let id = element.objectValue?[keys[.id]]?.stringValue, !id.isEmpty, !seen.insert(id).inserted {
                problem(id, .id, "duplicate question id (question \(index + 1)\(parent.map { " of \($0.kind.rawValue) \($0.id)" } ?? ""))")
            }
            let type = element.objectValue?[keys[.type]]?.stringValue
            if let type, type == keys[.group] || type == keys[.repeat], let object = element.objectValue {
                group(object, kind: type == keys[.group] ? .group : .repeat, position: index + 1, in: parent,
                      questions: &questions, groups: &groups, seen: &seen)
                continue
            }
            guard let question = question(element, position: index + 1, group: parent?.id) else { continue }
            questions.append(question)
        }
    }

    /// A group or repeat object and, after it, its questions.
    mutating func group(_ object: [String: JSONValue], kind: QuestionGroup.Kind, position: Int, in parent: QuestionGroup?,
                        questions: inout [Question], groups: inout [QuestionGroup], seen: inout Set<String>) {
        let rawID = object[keys[.id]]?.stringValue
        let label = (rawID?.isEmpty == false ? rawID : nil) ?? "#\(position)"
        let id = string(object, .id, question: label)
        if let id, let reason = SafeName.problem(id) { problem(label, .id, "\"\(SafeName.printable(id))\" cannot be a \(kind.rawValue) id: \(reason)") }
        var text: String?
        var labels: [String: String] = [:]
        switch object[keys[.text]] {
        case nil, .null?: break
        case .string(let value)? where BlankText.isBlankOrNewlines(value): break
        case let value?:
            if let localized = localizedText(value, label, .text, field: "\(kind.rawValue)'s label", allowNewlines: true) {
                (text, labels) = localized
            }
        }
        let relevant = QuestionLogic.expression(object, .relevant, label: label, validator: &self)
        var repeatCount: QuestionGroup.RepeatCount?
        switch object[keys[.repeatCount]] {
        case nil, .null?: break
        case let value? where kind == .group:
            _ = value
            problem(label, .repeatCount, "only a repeat has a count (make it {\"\(keys[.type])\": \"\(keys[.repeat])\"})")
        case .number(let number)?:
            if let count = JSONValue.number(number).integerValue, count >= 0, count <= QuestionGroup.maxInstances {
                repeatCount = .fixed(count)
            } else {
                problem(label, .repeatCount, "expected a whole number from 0 to \(QuestionGroup.maxInstances), or an expression, found \(formatNumber(number))")
            }
        case .string?:
            if let expression = QuestionLogic.expression(object, .repeatCount, label: label, validator: &self) {
                repeatCount = .expression(expression)
            }
        case let value?: problem(label, .repeatCount, "expected a number or an expression, found \(value.kindDescription)")
        }
        let known = Set(TemplateKeys.Key.groupScope.map { keys[$0] })
        for key in object.keys.sorted() where !known.contains(key) {
            problem(label, nil, "a \(kind.rawValue) takes only \(TemplateKeys.Key.groupScope.map { "\"\(keys[$0])\"" }.joined(separator: ", ")); found \"\(DisplayText.escaped(key))\"")
        }
        let group = QuestionGroup(id: id ?? label, kind: kind, text: text, parent: parent?.id, relevant: relevant, repeatCount: repeatCount,
                                  labels: labels)
        if id != nil { groups.append(group) }
        switch object[keys[.questions]] {
        case nil: problem(label, .questions, "missing (a \(kind.rawValue) holds questions)")
        case .array(let array)?:
            if array.isEmpty { problem(label, .questions, "a \(kind.rawValue) needs at least one question") }
            items(array, in: group, questions: &questions, groups: &groups, seen: &seen)
        case let value?: problem(label, .questions, "expected an array, found \(value.kindDescription)")
        }
    }

    /// One question object; `group` is the id of the group or repeat it stands in.
    mutating func question(_ json: JSONValue, position: Int, group: String? = nil) -> Question? {
        guard let object = json.objectValue else {
            problem("#\(position)", nil, "expected a JSON object, found \(json.kindDescription)")
            return nil
        }
        let rawID = object[keys[.id]]?.stringValue
        let label = (rawID?.isEmpty == false ? rawID : nil) ?? "#\(position)"
        let id = string(object, .id, question: label)
        if let id, let reason = SafeName.problem(id) { problem(label, .id, "\"\(SafeName.printable(id))\" cannot be a question id: \(reason)") }
        questionTranslations = [:]
        var text: String?
        if let value = object[keys[.text]] {
            if let localized = localizedText(value, label, .text, field: "question's text", allowNewlines: true) {
                text = localized.text
                // The first texts read: the languages' entries made in one go, without hashing.
                questionTranslations = localized.translations.mapValues { QuestionTexts(text: $0) }
            }
        } else {
            problem(label, .text, "missing")
        }
        var help: String?
        switch object[keys[.help]] {
        case nil, .null?: break
        case .string(let string)? where string.isEmpty: break
        case let value?:
            if let localized = localizedText(value, label, .help, field: "help", allowNewlines: true) {
                help = localized.text
                for (language, translation) in localized.translations { questionTranslations[language, default: QuestionTexts()].help = translation }
            }
        }
        var image: String?
        func imageName(_ name: String) -> String? {
            if let reason = SafeName.problem(name) {
                problem(label, .image, "\"\(SafeName.printable(name))\" cannot be an image file name: \(reason)")
            } else if !Question.imageExtensions.contains((name as NSString).pathExtension.lowercased()) {
                problem(label, .image, "\"\(SafeName.printable(name))\" is not a PNG or JPEG file (its name must end in .png, .jpg or .jpeg)")
            } else {
                return name
            }
            return nil
        }
        switch object[keys[.image]] {
        case nil, .null?: break
        case .string(let name)?: image = imageName(name)
        case .object(let names)? where defaultLanguage != nil:
            for (language, value) in names.sorted(by: { $0.key < $1.key }) {
                guard let name = value.stringValue.flatMap(imageName) else {
                    if value.stringValue == nil { problem(label, .image, "the \(DisplayText.escaped(language)) image must be a file name, found \(value.kindDescription)") }
                    continue
                }
                questionTranslations[language, default: QuestionTexts()].image = name
                if language == defaultLanguage { image = name }
            }
            if image == nil { problem(label, .image, "no image in the default language \"\(DisplayText.escaped(defaultLanguage ?? ""))\"") }
        case let value?: problem(label, .image, "expected a file name\(defaultLanguage == nil ? "" : " (or an object of language → file name)"), found \(value.kindDescription)")
        }
        var kind: Question.Kind?
        if let type = string(object, .type, question: label) {
            if let known = types[type] {
                kind = decode(known, object, label)
            } else {
                let names = TemplateKeys.Key.typeNames.map { "\"\(keys[$0])\"" }.joined(separator: ", ")
                problem(label, .type, "unknown question type \"\(DisplayText.escaped(type))\" (known: \(names))")
            }
        }
        let logic = QuestionLogic.decode(object, question: label, validator: &self)
        guard let id, let text, let kind else { return nil }
        return Question(id: id, text: text, help: help, image: image, kind: kind, logic: logic, group: group, translations: questionTranslations)
    }

    /// The checks of form logic that need the whole template: every `${name}` names a question
    /// (at its position in the expression), calculations do not depend on themselves, a
    /// `calculate` question has a calculation, and a `default` is an answer the question takes.
    mutating func checkLogic(_ template: Template) {
        // Questions are read through a buffer, field by field (`questions[index].id`): an array's
        // element would be copied whole, and that costs more than these checks.
        var ids = Set<String>(minimumCapacity: template.questions.count + template.groups.count)
        template.questions.withUnsafeBufferPointer { questions in
            for index in questions.indices { ids.insert(questions[index].id) }
        }
        for group in template.groups { ids.insert(group.id) }
        for group in template.groups {
            for (key, expression) in group.expressions {
                for error in expression.unknownReferences({ ids.contains($0) }) {
                    problem(group.id, key, "\(error) in \"\(DisplayText.escaped(expression.text))\"")
                }
            }
            // A repeat's count is read before its instances exist: it cannot read its own questions.
            if case .expression(let expression)? = group.repeatCount {
                let inside = Set(template.questions.filter { template.groupChain(of: $0).contains { $0.id == group.id } }.map(\.id))
                    .union(template.groups.filter { template.groupChain(from: $0.id).contains { $0.id == group.id } }.map(\.id))
                for name in expression.references where inside.contains(name) {
                    problem(group.id, .repeatCount, "the count reads ${\(name)}, which stands inside the repeat itself")
                }
            }
        }
        template.questions.withUnsafeBufferPointer { questions in
            for index in questions.indices {
                let id = questions[index].id
                let logic = questions[index].logic
                let type = questions[index].kind.type
                for (key, expression) in logic.expressions {
                    // Only a choice filter reads the options' attributes.
                    let attributes: Set<String> = key != .choiceFilter ? [] : type.filterableChoices.map { choices in
                        Set(["name", "label"] + choices.flatMap(\.attributes.keys)).reduce(into: []) { $0.insert(QuestionLogic.optionPrefix + $1) }
                    } ?? []
                    for error in expression.unknownReferences({ ids.contains($0) || (key == .choiceFilter && attributes.contains($0)) }) {
                        problem(id, key, "\(error) in \"\(DisplayText.escaped(expression.text))\"")
                    }
                }
                if type.holdsCalculation, logic.calculation == nil {
                    problem(id, .calculation, "missing (a \(keys[.calculate]) question holds the value of its calculation)")
                }
                if logic.choiceFilter != nil, type.filterableChoices == nil {
                    problem(id, .choiceFilter, "only a multiple-choice question's options can be filtered")
                }
                if let text = logic.defaultValue {
                    let rules = AnswerRules(question: questions[index], position: index + 1, count: questions.count)
                    do { _ = try type.value(fromLine: text, rules: rules) } catch let error as AnswerError {
                        problem(id, .defaultValue, "\"\(DisplayText.escaped(text))\" is not an answer the question takes: \(error.rule)")
                    } catch {
                        problem(id, .defaultValue, "\"\(DisplayText.escaped(text))\" is not an answer the question takes")
                    }
                }
            }
        }
        for cycle in FormLogic.calculationCycles(template) {
            problem(cycle.first, .calculation, "the calculation depends on itself (\(cycle.joined(separator: " → ")))")
        }
    }

    /// The settings of a question of type `type`, read by the type itself.
    mutating func decode<T: QuestionType>(_ type: T.Type, _ object: [String: JSONValue], _ label: String) -> Question.Kind? {
        T.decode(object, question: label, validator: &self).map { Question.Kind($0) }
    }

    // MARK: - Field helpers

    public mutating func string(_ object: [String: JSONValue], _ key: TemplateKeys.Key, question: String?) -> String? {
        guard let value = object[keys[key]] else { problem(question, key, "missing"); return nil }
        guard let string = value.stringValue else {
            problem(question, key, "expected a string, found \(value.kindDescription)")
            return nil
        }
        if BlankText.isBlankOrNewlines(string) { problem(question, key, "empty"); return nil }
        return string
    }

    public mutating func strings(_ object: [String: JSONValue], _ key: TemplateKeys.Key, question: String) -> [String]? {
        guard let value = object[keys[key]] else { problem(question, key, "missing"); return nil }
        guard let array = value.arrayValue else {
            problem(question, key, "expected an array of strings, found \(value.kindDescription)")
            return nil
        }
        var result: [String] = []
        for (index, element) in array.enumerated() {
            guard let string = element.stringValue, !BlankText.isBlank(string) else {
                problem(question, key, "entry \(index + 1) must be a non-empty string, found \(describe(element))")
                return nil
            }
            let keyName = keys[key]
            checkText(string, question, key, field: "\(keyName) entry \(index + 1)")
            result.append(string)
        }
        return result
    }

    public func describe(_ value: JSONValue) -> String {
        switch value {
        case .number(let number): return formatNumber(number)
        case .string(let string): return "\"\(DisplayText.escaped(string))\""
        default: return value.kindDescription
        }
    }
}
