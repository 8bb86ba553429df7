import Foundation

/// Reads many form.json files fast, with exactly the result of `FormFile.decode` (statistics,
/// exports and the server read thousands). Two things make `FormFile.decode` slow in bulk:
/// `JSONDecoder` tries each type in turn for every value of the template copy and answers, and
/// every form re-validates the same template copy. The reader parses with `JSONBytes` and keeps
/// each distinct template copy it has validated, by its bytes, so forms started from the same
/// template reuse it. Anything it does not read exactly as `FormFile.decode` would (another
/// format version, a date with fractions, a malformed file) goes to `FormFile.decode`, whose
/// result or error is then the answer: one set of rules, one set of messages.
public struct FormReader: Sendable {
    /// Template copies already validated, by their exact bytes.
    private var templates: [TemplateBytes: Template] = [:]
    /// Past this many distinct copies the cache starts again (a store holds a handful).
    static let templateLimit = 64

    public init() {}

    /// The form in `data`, as `FormFile.decode(data)` gives it.
    public mutating func decode(_ data: Data) throws -> Form {
        if let form = fastDecode(data) { return form }
        return try FormFile.decode(data)
    }

    private mutating func fastDecode(_ data: Data) -> Form? {
        data.withUnsafeBytes { raw -> Form? in
            var parser = JSONBytes(raw.bindMemory(to: UInt8.self))
            guard parser.take(UInt8(ascii: "{")) else { return nil }
            var fields: [String: JSONValue] = [:]
            var template: Template?
            if parser.take(UInt8(ascii: "}")) { return nil }
            repeat {
                parser.skipSpace()
                guard let key = parser.string(), parser.take(UInt8(ascii: ":")) else { return nil }
                if key == "template" {
                    guard template == nil, let copy = self.template(&parser) else { return nil }
                    template = copy
                } else {
                    guard let value = parser.value(), fields.updateValue(value, forKey: key) == nil else { return nil }
                }
            } while parser.take(UInt8(ascii: ","))
            guard parser.take(UInt8(ascii: "}")) else { return nil }
            parser.skipSpace()
            guard parser.index == parser.bytes.count, let template else { return nil }
            return Self.form(fields, template: template)
        }
    }

    /// The template copy at the parser: known bytes are looked up, new ones parsed and validated.
    private mutating func template(_ parser: inout JSONBytes) -> Template? {
        parser.skipSpace()
        let start = parser.index
        guard parser.skipValue() else { return nil }
        let key = TemplateBytes(bytes: Array(UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.index])))
        if let known = templates[key] { return known }
        parser.index = start
        guard let json = parser.value(), let template = try? TemplateCoding().decode(json, source: "form.json") else { return nil }
        if templates.count >= Self.templateLimit { templates.removeAll() }
        templates[key] = template
        return template
    }

    /// The form from the top-level fields, or nil where `FormFile.decode` might read them otherwise.
    private static func form(_ fields: [String: JSONValue], template: Template) -> Form? {
        let known: Set<String> = FormFile.headerKeys.union(["answers", "audit", "foremanComments", "returnNote", "userDisplayName"])
        // Unknown keys are ignored by the decoder as here; a null where a value must be is not.
        guard fields.keys.allSatisfy(known.contains),
              let version = fields["formatVersion"]?.exactInt, version <= FormFile.formatVersion,
              let id = fields["id"]?.stringValue.flatMap(UUID.init(uuidString:)),
              let name = fields["name"]?.stringValue, let user = fields["user"]?.stringValue,
              let status = fields["status"]?.stringValue.flatMap(Form.Status.init(rawValue:)),
              fields["templateID"]?.stringValue != nil, fields["templateTitle"]?.stringValue != nil,
              fields["templateVersion"]?.exactInt != nil,
              fields["questions"]?.exactInt != nil, fields["answered"]?.exactInt != nil, fields["media"]?.exactInt != nil,
              let createdAt = fields["createdAt"].flatMap(date), let updatedAt = fields["updatedAt"].flatMap(date),
              let submittedAt = optional(fields["submittedAt"], date), let returnedAt = optional(fields["returnedAt"], date),
              let returnNote = optional(fields["returnNote"], { $0.stringValue }),
              let displayName = optional(fields["userDisplayName"], { $0.stringValue }),
              case .object(let answerFields)? = fields["answers"], case .array(let auditItems)? = fields["audit"],
              case .array(let commentItems)? = fields["foremanComments"]
        else { return nil }
        var answers: [String: Answer] = [:]
        for (questionID, json) in answerFields {
            guard let answer = Self.answer(json) else { return nil }
            answers[questionID] = answer
        }
        var audit: [AuditEvent] = []
        for item in auditItems {
            guard let event = Self.event(item) else { return nil }
            audit.append(event)
        }
        var comments: [ForemanComment] = []
        for item in commentItems {
            guard case .object(let object) = item, let at = object["at"].flatMap(date), let by = object["by"]?.stringValue,
                  let text = object["text"]?.stringValue else { return nil }
            comments.append(ForemanComment(at: at, by: by, text: text))
        }
        var form = Form(id: id, name: name, user: user, template: template, createdAt: createdAt)
        form.status = status
        form.updatedAt = updatedAt
        form.submittedAt = submittedAt
        form.returnedAt = returnedAt
        form.returnNote = returnNote
        form.answers = answers
        form.audit = audit
        form.foremanComments = comments
        form.userDisplayName = displayName
        return form
    }

    /// `.some(nil)` for absent or null, `.some(value)` when read, nil when not readable here.
    private static func optional<T>(_ json: JSONValue?, _ read: (JSONValue) -> T?) -> T?? {
        guard let json, json != .null else { return .some(nil) }
        guard let value = read(json) else { return nil }
        return .some(value)
    }

    /// A date as `mi` writes it (`2026-11-23T06:56:03Z`); others go to the decoder.
    private static func date(_ json: JSONValue) -> Date? {
        guard case .string(let text) = json else { return nil }
        return HeaderValue.date(Array("\"\(text)\"".utf8))
    }

    /// `Answer(from:)`: value, comment, media (default none), draft; null as absent.
    private static func answer(_ json: JSONValue) -> Answer? {
        guard case .object(let object) = json,
              let value = optional(object["value"], answerValue),
              let comment = optional(object["comment"], { $0.stringValue }),
              let media = optional(object["media"], strings),
              let draft = optional(object["draft"], table)
        else { return nil }
        var answer = Answer(value: value, comment: comment, media: media ?? [])
        answer.draft = draft
        return answer
    }

    /// `AnswerValue(from:)`'s order: a boolean, a number, a string, strings, rows of cells.
    private static func answerValue(_ json: JSONValue) -> AnswerValue? {
        switch json {
        case .bool(let value): return .bool(value)
        case .number(let value): return .number(value)
        case .string(let value): return .text(value)
        case .array:
            if let labels = strings(json) { return .choices(labels) }
            return table(json).map(AnswerValue.table)
        case .null, .object: return nil
        }
    }

    private static func strings(_ json: JSONValue) -> [String]? {
        guard case .array(let items) = json else { return nil }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .string(let text) = item else { return nil }
            result.append(text)
        }
        return result
    }

    private static func table(_ json: JSONValue) -> [[String?]]? {
        guard case .array(let rows) = json else { return nil }
        var result: [[String?]] = []
        for row in rows {
            guard case .array(let cells) = row else { return nil }
            var line: [String?] = []
            for cell in cells {
                switch cell {
                case .null: line.append(nil)
                case .string(let text): line.append(text)
                default: return nil
                }
            }
            result.append(line)
        }
        return result
    }

    private static func event(_ json: JSONValue) -> AuditEvent? {
        guard case .object(let object) = json, let at = object["at"].flatMap(date), let by = object["by"]?.stringValue,
              let action = object["action"]?.stringValue.flatMap(AuditEvent.Action.init(rawValue:)),
              let questions = optional(object["questions"], strings),
              let media = optional(object["media"], { $0.stringValue }), let from = optional(object["from"], { $0.stringValue }),
              let to = optional(object["to"], { $0.stringValue }), let note = optional(object["note"], { $0.stringValue })
        else { return nil }
        return AuditEvent(at: at, by: by, action: action, questions: questions, media: media, from: from, to: to, note: note)
    }
}

/// A template copy's bytes, hashed in one call (not byte by byte).
private struct TemplateBytes: Hashable, Sendable {
    let bytes: [UInt8]
    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
}

extension FormReader {
    /// `read` of every item, on every core (a `FormReader` for each core's share), in the
    /// items' order: the local store's forms and the server's stored submissions alike.
    public static func concurrently<Item: Sendable>(_ items: [Item],
                                                    _ read: @Sendable (Item, inout FormReader) throws -> Form) -> [Result<Form, any Error>] {
        let slots = Slots<Result<Form, any Error>>(count: items.count)
        let chunks = min(items.count, ProcessInfo.processInfo.activeProcessorCount)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var reader = FormReader()
            let share = (items.count + chunks - 1) / chunks
            for index in (chunk * share)..<min(items.count, (chunk + 1) * share) {
                slots.set(index, Result { try read(items[index], &reader) })
            }
        }
        return slots.values()
    }
}

extension Store {
    /// The forms at `locations`, read on every core (each with its own `FormReader`), in order.
    public func loadConcurrently(_ locations: [FormLocation]) -> [Result<Form, any Error>] {
        FormReader.concurrently(locations) { location, reader in try load(location, reader: &reader) }
    }
}

extension JSONValue {
    /// A whole number that `JSONDecoder` reads as an `Int` (no fraction, in range).
    var exactInt: Int? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) < 1e15 else { return nil }
        return Int(number)
    }
}
