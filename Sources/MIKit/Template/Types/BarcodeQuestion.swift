import Foundation

/// `barcode`: the text of a barcode or QR code, typed, scanned (a USB scanner types it like a
/// keyboard, ending with Enter), or read from a photo of the code (`mi answer FORM Q
/// --from-image tag.jpg`, `:scan PATH` in `mi fill`, which keep the photo as the question's
/// media). Stored as text, trimmed; one line, no control characters.
public struct BarcodeQuestion: QuestionType {
    public init() {}

    /// The most characters a code holds (a QR code's limit, in 8-bit mode a little less).
    public static let maxLength = 4296

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("barcode")
    public static let displayName = "Barcode"
    public static let keys: [TemplateKeys.Key] = []

    public static func decode(_ object: [String: JSONValue], question: String, validator: inout TemplateValidator) -> Self? { Self() }
    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {}

    public var typeDescription: String { "barcode or QR code" }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue { try code(line, rules) }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        guard let string = json.stringValue else { throw rules.refuse("expected the code as text, found \(json.kindDescription)") }
        return try code(string, rules)
    }

    /// The code as read: trimmed, not empty, at most `maxLength` characters. Control characters
    /// (a scanner's Tab or group separator) are refused with every answer's text rule.
    func code(_ text: String, _ rules: AnswerRules) throws -> AnswerValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw rules.refuse("the code is empty — type or scan it, or read it from a photo (--from-image)") }
        guard trimmed.count <= Self.maxLength else {
            throw rules.refuse("a code is at most \(Self.maxLength) characters, got \(trimmed.count)")
        }
        return .text(trimmed)
    }

    // MARK: mi fill

    public var answerHint: String { "Code (type or scan it; :scan PHOTO reads it from a photo) " }

    // MARK: Simulation, statistics

    /// Asset tags as field crews meet them: `HYD-00417`, `PMP-2231-B`.
    static let prefixes = ["HYD", "PMP", "VLV", "MTR", "TNK"]

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        let prefix = generator.pick(Self.prefixes)
        let number = generator.int(in: 1...99_999)
        let suffix = generator.chance(0.2) ? "-" + generator.pick(["A", "B", "C"]) : ""
        return .string("\(prefix)-\(String(format: "%05d", number))\(suffix)")
    }

    public var tally: TallyShape { .texts }
}

extension TemplateKeys.Key {
    public static let barcode = BarcodeQuestion.typeKey
}

extension Question.Kind {
    public static let barcode = Self(BarcodeQuestion())
}
