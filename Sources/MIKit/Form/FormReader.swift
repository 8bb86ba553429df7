import Foundation

/// Reads many form.json files fast, with exactly the result of `FormFile.decode` (statistics,
/// exports and the server read thousands). Three things make `FormFile.decode` slow in bulk:
/// `JSONDecoder` tries each type in turn for every value of the template copy and answers,
/// builds a generic value before the typed one, and every form re-validates the same template
/// copy. The reader parses the bytes straight into the form's types (`JSONBytes`, as strict as
/// the decoder) and keeps each distinct template copy it has validated, by its bytes, so forms
/// started from the same template reuse it. Anything it does not read exactly as
/// `FormFile.decode` would (another format version, a date with fractions, an unknown key, a
/// malformed file) goes to `FormFile.decode`, whose result or error is then the answer: one set
/// of rules, one set of messages.
public struct FormReader: Sendable {
    /// Template copies already validated, by the hash of their exact bytes.
    private var templates: [Int: [(bytes: [UInt8], template: Template)]] = [:]
    private var templateCount = 0
    /// The copy the last form kept.
    private var lastTemplate: (bytes: [UInt8], template: Template)?
    /// Past this many distinct copies the cache starts again (a store holds a handful).
    static let templateLimit = 64

    public init() {}

    /// The form in `data`, as `FormFile.decode(data)` gives it.
    public mutating func decode(_ data: Data) throws -> Form {
        if let form = fastDecode(data) { return form }
        return try FormFile.decode(data)
    }

    /// The top-level keys the reader reads itself, each once; any other key sends the file to
    /// the decoder (which ignores unknown keys, so such a file still reads the same).
    private enum Key: Int {
        case formatVersion, id, name, user, status, templateID, templateTitle, templateVersion, questions, answered, media
        case createdAt, updatedAt, submittedAt, returnedAt, returnNote, userDisplayName, answers, audit, foremanComments, template
        case consent, timeZone, scores, startLocation, repeats, language

        init?(_ text: String) {
            switch text {
            case "formatVersion": self = .formatVersion
            case "id": self = .id
            case "name": self = .name
            case "user": self = .user
            case "status": self = .status
            case "templateID": self = .templateID
            case "templateTitle": self = .templateTitle
            case "templateVersion": self = .templateVersion
            case "questions": self = .questions
            case "answered": self = .answered
            case "media": self = .media
            case "createdAt": self = .createdAt
            case "updatedAt": self = .updatedAt
            case "submittedAt": self = .submittedAt
            case "returnedAt": self = .returnedAt
            case "returnNote": self = .returnNote
            case "userDisplayName": self = .userDisplayName
            case "answers": self = .answers
            case "audit": self = .audit
            case "foremanComments": self = .foremanComments
            case "template": self = .template
            case "consent": self = .consent
            case "timeZone": self = .timeZone
            case "scores": self = .scores
            case "startLocation": self = .startLocation
            case "repeats": self = .repeats
            case "language": self = .language
            default: return nil
            }
        }

        /// Must be present (the optional ones may also be null).
        static let required: [Key] = [.formatVersion, .id, .name, .user, .status, .templateID, .templateTitle, .templateVersion,
                                      .questions, .answered, .media, .createdAt, .updatedAt, .answers, .audit, .foremanComments, .template]
    }

    private mutating func fastDecode(_ data: Data) -> Form? {
        data.withUnsafeBytes { raw -> Form? in
            var parser = JSONBytes(raw.bindMemory(to: UInt8.self))
            guard parser.take(UInt8(ascii: "{")), !parser.take(UInt8(ascii: "}")) else { return nil }
            var seen: UInt32 = 0
            var id: FormID?, name: String?, user: String?, status: Form.Status?
            var createdAt: Date?, updatedAt: Date?, submittedAt: Date?, returnedAt: Date?
            var returnNote: String?, displayName: String?, timeZone: String?, consent: ConsentAcceptance?
            var startLocation: Geopoint?
            var repeats: [String: Int] = [:]
            var language: String?
            var answers: [String: Answer] = [:], audit: [AuditEvent] = [], comments: [ForemanComment] = []
            var template: Template?
            repeat {
                parser.skipSpace()
                guard let text = parser.string(), parser.take(UInt8(ascii: ":")) else { return nil }
                guard let key = Key(text) else {
                    // A header key this reader does not use is read and ignored, as before.
                    guard FormFile.headerKeys.contains(text), parser.value() != nil else { return nil }
                    continue
                }
                guard seen & (1 << key.rawValue) == 0 else { return nil }
                seen |= 1 << key.rawValue
                switch key {
                case .formatVersion:
                    guard let version = parser.int(), version <= FormFile.formatVersion else { return nil }
                case .templateVersion, .questions, .answered, .media:
                    guard parser.int() != nil else { return nil }
                case .templateID, .templateTitle:
                    guard parser.stringValue() != nil else { return nil }
                case .id:
                    guard let value = parser.uuid() else { return nil }
                    id = FormID(value)
                case .name: guard let value = parser.stringValue() else { return nil }; name = value
                case .user: guard let value = parser.stringValue() else { return nil }; user = value
                case .status:
                    guard let value = parser.stringValue().flatMap(Form.Status.init(rawValue:)) else { return nil }
                    status = value
                case .createdAt: guard let value = parser.date() else { return nil }; createdAt = value
                case .updatedAt: guard let value = parser.date() else { return nil }; updatedAt = value
                case .submittedAt: guard let value = parser.optional({ $0.date() }) else { return nil }; submittedAt = value
                case .returnedAt: guard let value = parser.optional({ $0.date() }) else { return nil }; returnedAt = value
                case .returnNote: guard let value = parser.optional({ $0.stringValue() }) else { return nil }; returnNote = value
                case .userDisplayName:
                    guard let value = parser.optional({ $0.stringValue() }) else { return nil }
                    displayName = value
                case .answers: guard let value = Self.answers(&parser) else { return nil }; answers = value
                case .audit: guard let value = parser.array(Self.event) else { return nil }; audit = value
                case .foremanComments: guard let value = parser.array(Self.comment) else { return nil }; comments = value
                case .template: guard let copy = self.template(&parser) else { return nil }; template = copy
                case .timeZone: guard let value = parser.optional({ $0.stringValue() }) else { return nil }; timeZone = value
                case .consent: guard let value = parser.optional(Self.consent) else { return nil }; consent = value
                // Written for other readers; MI recomputes scores from the answers.
                case .scores: guard parser.value() != nil else { return nil }
                case .startLocation:
                    guard let value = parser.optional({ $0.value().flatMap { try? Geopoint(json: $0) } }) else { return nil }
                    startLocation = value
                case .repeats: guard let value = Self.counts(&parser) else { return nil }; repeats = value
                case .language: guard let value = parser.optional({ $0.stringValue() }) else { return nil }; language = value
                }
            } while parser.take(UInt8(ascii: ","))
            guard parser.take(UInt8(ascii: "}")) else { return nil }
            parser.skipSpace()
            guard parser.index == parser.bytes.count, Key.required.allSatisfy({ seen & (1 << $0.rawValue) != 0 }),
                  let id, let name, let user, let status, let createdAt, let updatedAt, let template else { return nil }
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
            form.timeZone = timeZone
            form.consent = consent
            form.startLocation = startLocation
            form.repeats = repeats
            form.language = language
            return form
        }
    }

    /// The template copy at the parser: known bytes are looked up, new ones parsed and validated.
    private mutating func template(_ parser: inout JSONBytes) -> Template? {
        parser.skipSpace()
        let start = parser.index
        // Most forms keep the copy the previous one kept: bytes equal to a known copy (a whole
        // JSON object, so it ends where they end) are that copy, without scanning or hashing.
        if let last = lastTemplate, Self.matches(last.bytes, parser.bytes, at: start) {
            parser.index = start + last.bytes.count
            return last.template
        }
        guard parser.skipValue() else { return nil }
        let bytes = UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.index])
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        let hash = hasher.finalize()
        for known in templates[hash] ?? [] where known.bytes.count == bytes.count {
            let same = known.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            if same {
                lastTemplate = known
                return known.template
            }
        }
        parser.index = start
        guard let json = parser.value(), let template = try? TemplateCoding().decode(json, source: "form.json") else { return nil }
        if templateCount >= Self.templateLimit { templates.removeAll(); templateCount = 0 }
        templates[hash, default: []].append((Array(bytes), template))
        lastTemplate = (Array(bytes), template)
        templateCount += 1
        return template
    }

    /// Whether `bytes` holds `known` at `index`.
    private static func matches(_ known: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard !known.isEmpty, index + known.count <= bytes.count else { return false }
        return known.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress! + index, known.count) == 0 }
    }

    /// The `repeats` object: instance counts by path.
    private static func counts(_ parser: inout JSONBytes) -> [String: Int]? {
        guard let value = parser.value(), case .object(let object) = value else { return nil }
        var counts: [String: Int] = [:]
        for (key, count) in object {
            guard let number = count.integerValue, number >= 0 else { return nil }
            counts[key] = number
        }
        return counts
    }

    /// The answers object, by question id.
    private static func answers(_ parser: inout JSONBytes) -> [String: Answer]? {
        guard parser.take(UInt8(ascii: "{")) else { return nil }
        var answers: [String: Answer] = [:]
        if parser.take(UInt8(ascii: "}")) { return answers }
        repeat {
            parser.skipSpace()
            guard let id = parser.string(), parser.take(UInt8(ascii: ":")), let answer = Self.answer(&parser),
                  answers.updateValue(answer, forKey: id) == nil else { return nil }
        } while parser.take(UInt8(ascii: ","))
        return parser.take(UInt8(ascii: "}")) ? answers : nil
    }

    /// `Answer(from:)`: value, comment, media (default none), draft; null as absent.
    private static func answer(_ parser: inout JSONBytes) -> Answer? {
        var answer = Answer()
        let read = parser.object(keys: ["value", "comment", "media", "draft"]) { parser, key -> Bool in
            switch key {
            case 0:
                guard let value = parser.optional(Self.answerValue) else { return false }
                answer.value = value
            case 1:
                guard let comment = parser.optional({ $0.stringValue() }) else { return false }
                answer.comment = comment
            case 2:
                guard let media = parser.optional({ $0.strings() }) else { return false }
                answer.media = media ?? []
            default:
                guard let draft = parser.optional(Self.cells) else { return false }
                answer.draft = draft
            }
            return true
        }
        return read ? answer : nil
    }

    /// `AnswerValue(from:)`'s order: a boolean, a number, a string, strings, rows of cells.
    private static func answerValue(_ parser: inout JSONBytes) -> AnswerValue? {
        guard let next = parser.peek() else { return nil }
        switch next {
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            guard case .bool(let value)? = parser.value() else { return nil }
            return .bool(value)
        case UInt8(ascii: "\""): return parser.string().map(AnswerValue.text)
        case UInt8(ascii: "["):
            let start = parser.index
            parser.index += 1
            if parser.take(UInt8(ascii: "]")) { return .choices([]) }
            let first = parser.peek()
            parser.index = start
            if first == UInt8(ascii: "\"") { return parser.strings().map(AnswerValue.choices) }
            if first == UInt8(ascii: "[") { return cells(&parser).map(AnswerValue.cells) }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parser.number().map(AnswerValue.number)
        // A location object; one that is not a point goes to the decoder, whose error names why.
        case UInt8(ascii: "{"):
            guard let json = parser.value(), let point = try? Geopoint(json: json) else { return nil }
            return .location(point)
        default: return nil
        }
    }

    /// Rows of cells, each a string or null.
    private static func cells(_ parser: inout JSONBytes) -> [[String?]]? {
        parser.array { parser in
            parser.array { parser in
                if parser.peek() == UInt8(ascii: "n") { return parser.literal("null") ? .some(nil) : nil }
                return parser.string().map { .some($0) }
            }
        }
    }

    private static func event(_ parser: inout JSONBytes) -> AuditEvent? {
        var at: Date?, by: String?, action: AuditEvent.Action?
        var questions: [String]?, media: String?, from: String?, to: String?, note: String?
        let read = parser.object(keys: ["at", "by", "action", "questions", "media", "from", "to", "note"]) { parser, key -> Bool in
            switch key {
            case 0: guard let value = parser.date() else { return false }; at = value
            case 1: guard let value = parser.stringValue() else { return false }; by = value
            case 2:
                guard let value = parser.stringValue().flatMap(AuditEvent.Action.init(rawValue:)) else { return false }
                action = value
            case 3: guard let value = parser.optional({ $0.strings() }) else { return false }; questions = value
            case 4: guard let value = parser.optional({ $0.stringValue() }) else { return false }; media = value
            case 5: guard let value = parser.optional({ $0.stringValue() }) else { return false }; from = value
            case 6: guard let value = parser.optional({ $0.stringValue() }) else { return false }; to = value
            default: guard let value = parser.optional({ $0.stringValue() }) else { return false }; note = value
            }
            return true
        }
        guard read, let at, let by, let action else { return nil }
        return AuditEvent(at: at, by: by, action: action, questions: questions, media: media, from: from, to: to, note: note)
    }

    private static func consent(_ parser: inout JSONBytes) -> ConsentAcceptance? {
        var at: Date?, by: String?, sha256: String?
        let read = parser.object(keys: ["at", "by", "sha256"]) { parser, key -> Bool in
            switch key {
            case 0: guard let value = parser.date() else { return false }; at = value
            case 1: guard let value = parser.stringValue() else { return false }; by = value
            default: guard let value = parser.stringValue() else { return false }; sha256 = value
            }
            return true
        }
        guard read, let at, let by, let sha256 else { return nil }
        return ConsentAcceptance(by: by, at: at, sha256: sha256)
    }

    private static func comment(_ parser: inout JSONBytes) -> ForemanComment? {
        var at: Date?, by: String?, text: String?
        let read = parser.object(keys: ["at", "by", "text"]) { parser, key -> Bool in
            switch key {
            case 0: guard let value = parser.date() else { return false }; at = value
            case 1: guard let value = parser.stringValue() else { return false }; by = value
            default: guard let value = parser.stringValue() else { return false }; text = value
            }
            return true
        }
        guard read, let at, let by, let text else { return nil }
        return ForemanComment(at: at, by: by, text: text)
    }
}

/// Typed reading for `FormReader`: each returns nil (and the file goes to the decoder) where
/// the value is not of the type, so only what the decoder would read the same is read here.
extension JSONBytes {
    /// The next byte after white space, not consumed.
    fileprivate mutating func peek() -> UInt8? {
        skipSpace()
        return index < bytes.count ? bytes[index] : nil
    }

    fileprivate mutating func stringValue() -> String? {
        skipSpace()
        return string()
    }

    /// A whole number that `JSONDecoder` reads as an `Int` (no fraction, in range).
    fileprivate mutating func int() -> Int? {
        guard let first = peek(), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              let number = number() else { return nil }
        return JSONValue.number(number).exactInt
    }

    /// A date as `mi` writes it (`"2026-11-23T06:56:03Z"`, no escapes); others go to the decoder.
    fileprivate mutating func date() -> Date? {
        skipSpace()
        guard index + 22 <= bytes.count, let date = HeaderValue.date(UnsafeBufferPointer(rebasing: bytes[index..<index + 22])) else {
            return nil
        }
        index += 22
        return date
    }

    /// A UUID as `UUID(uuidString:)` reads it (hex digits of either case, hyphens at 8, 13, 18
    /// and 23), without escapes; others go to the decoder.
    fileprivate mutating func uuid() -> UUID? {
        skipSpace()
        guard index + 38 <= bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[index + 37] == UInt8(ascii: "\"") else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let read = withUnsafeMutableBytes(of: &value) { raw -> Bool in
            var byte = 0
            var offset = 0
            while offset < 36 {
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard bytes[index + 1 + offset] == UInt8(ascii: "-") else { return false }
                    offset += 1
                    continue
                }
                guard let high = Self.hex(bytes[index + 1 + offset]), let low = Self.hex(bytes[index + 2 + offset]) else { return false }
                raw[byte] = high << 4 | low
                byte += 1
                offset += 2
            }
            return true
        }
        guard read else { return nil }
        index += 38
        return UUID(uuid: value)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `.some(nil)` for null, `.some(value)` when read, nil when not readable here.
    fileprivate mutating func optional<T>(_ read: (inout JSONBytes) -> T?) -> T?? {
        if peek() == UInt8(ascii: "n") { return literal("null") ? .some(nil) : nil }
        guard let value = read(&self) else { return nil }
        return .some(value)
    }

    /// An array whose every element `read` reads.
    fileprivate mutating func array<T>(_ read: (inout JSONBytes) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var result: [T] = []
        if take(UInt8(ascii: "]")) { return result }
        repeat {
            guard let element = read(&self) else { return nil }
            result.append(element)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? result : nil
    }

    fileprivate mutating func strings() -> [String]? {
        array { $0.stringValue() }
    }

    /// An object whose members named in `keys` are handed to `member` by their index there (it
    /// reads the value or says no); other members are read and ignored, as the decoder ignores
    /// them. A key twice is refused, as `JSONBytes.value` refuses it.
    fileprivate mutating func object(keys: [StaticString], _ member: (inout JSONBytes, Int) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        var seen: UInt32 = 0
        var others: [String] = []
        repeat {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
            if let known = knownKey(keys) {
                guard seen & (1 << known) == 0, take(UInt8(ascii: ":")), member(&self, known) else { return false }
                seen |= 1 << known
            } else {
                // A known key spelled with escapes goes to the decoder.
                guard let key = string(), !others.contains(key), !keys.contains(where: { $0.description == key }),
                      take(UInt8(ascii: ":")), value() != nil else { return false }
                others.append(key)
            }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// The index in `keys` of the key at `index` (its opening quote), consumed, when it is one
    /// of them written without escapes; nil (nothing consumed) otherwise.
    private mutating func knownKey(_ keys: [StaticString]) -> Int? {
        for (number, key) in keys.enumerated() {
            let count = key.utf8CodeUnitCount
            guard index + count + 2 <= bytes.count, bytes[index + count + 1] == UInt8(ascii: "\""),
                  memcmp(bytes.baseAddress! + index + 1, key.utf8Start, count) == 0 else { continue }
            index += count + 2
            return number
        }
        return nil
    }
}

extension FormReader {
    /// `read` of every item, on every core (a `FormReader` for each piece), in the items'
    /// order: the local store's forms and the server's stored submissions alike. `pieces`
    /// (one per core unless a test sets it) cuts the items by `WorkPieces.ranges`.
    public static func concurrently<Item: Sendable>(_ items: [Item], pieces: Int = WorkPieces.cores,
                                                    _ read: @Sendable (Item, inout FormReader) throws -> Form) -> [Result<Form, any Error>] {
        let slots = Slots<Result<Form, any Error>>(count: items.count)
        WorkPieces.run(WorkPieces.ranges(of: items.count, pieces: pieces)) { _, range in
            var reader = FormReader()
            for index in range {
                slots.set(index, Result { try read(items[index], &reader) })
            }
        }
        return slots.values()
    }
}

extension Store {
    /// Reads the forms at `locations` on every core, each with its own `FormReader`, handing
    /// each form (or why it cannot be read) to `add` with the partial result of its piece: the
    /// locations are cut into contiguous pieces, each starting from `initial`, and the partial
    /// results are returned in the pieces' order (to be merged in that order). No form is kept
    /// once added, so memory stays flat however many there are.
    public func readConcurrently<Partial: Sendable>(
        _ locations: [FormLocation], into initial: Partial,
        pieces: Int = WorkPieces.cores * 4,
        _ add: @Sendable (inout Partial, FormLocation, Result<Form, any Error>) -> Void
    ) -> [Partial] {
        // By default several pieces per core, so a core slowed by other work does not hold up
        // the rest; `WorkPieces.ranges` never makes more pieces than forms, nor an empty one.
        let ranges = WorkPieces.ranges(of: locations.count, pieces: pieces)
        let slots = Slots<Partial>(count: ranges.count)
        WorkPieces.run(ranges) { piece, range in
            var reader = FormReader()
            var partial = initial
            for index in range {
                add(&partial, locations[index], Result { try load(locations[index], reader: &reader) })
            }
            slots.set(piece, partial)
        }
        return slots.values()
    }
}

extension JSONValue {
    /// A whole number that `JSONDecoder` reads as an `Int` (no fraction, in range).
    var exactInt: Int? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) < 1e15 else { return nil }
        return Int(number)
    }
}
