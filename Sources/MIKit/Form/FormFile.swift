import Foundation

/// The form.json format: the summary's keys and the body (answers, audit, foreman comments,
/// template) in one object. Listings read only the summary's keys (`decodeSummary`).
public enum FormFile {
    public static let formatVersion = 1
    /// The first key of the body; it cannot occur unescaped inside a JSON string.

    private struct Body: Codable {
        var answers: [String: Answer]
        var audit: [AuditEvent]
        var foremanComments: [ForemanComment]
        var returnNote: String?
        var template: JSONValue
        /// Absent in forms written before display names were recorded.
        var userDisplayName: String?
        var consent: ConsentAcceptance?
        var timeZone: String?
        /// Where the form was started (`Geopoint.json`); absent when none was recorded.
        var startLocation: JSONValue?
        /// The instances of open repeats (`Form.repeats`); absent for a form without.
        var repeats: [String: Int]?
        /// The form's language (`Form.language`); absent for the template's default.
        var language: String?
        /// The scores as computed when the file was written, for readers of form.json; MI
        /// itself always recomputes them from the answers and never reads these.
        var scores: JSONValue?
    }

    private struct Header: Codable {
        var formatVersion: Int
        var summary: FormSummary

        init(formatVersion: Int, summary: FormSummary) {
            self.formatVersion = formatVersion
            self.summary = summary
        }
        enum CodingKeys: String, CodingKey { case formatVersion }
        init(from decoder: Decoder) throws {
            formatVersion = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .formatVersion)
            summary = try FormSummary(from: decoder)
        }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(formatVersion, forKey: .formatVersion)
            try summary.encode(to: encoder)
        }
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    public static func encode(_ form: Form) throws -> Data {
        let encoder = encoder()
        let header = try encoder.encode(Header(formatVersion: formatVersion, summary: form.summary))
        let body = try encoder.encode(Body(answers: form.answers, audit: form.audit,
                                           foremanComments: form.foremanComments, returnNote: form.returnNote,
                                           template: TemplateCoding().encode(form.template),
                                           userDisplayName: form.userDisplayName, consent: form.consent,
                                           timeZone: form.timeZone, startLocation: form.startLocation?.json,
                                           repeats: form.repeats.isEmpty ? nil : form.repeats, language: form.language,
                                           scores: form.scores?.valuesJSON))
        var data = Data(header.dropLast())
        data.append(UInt8(ascii: ","))
        data.append(body.dropFirst())
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes a whole form.json; the error says what is wrong with it.
    public static func decode(_ data: Data) throws -> Form {
        do {
            let decoder = decoder()
            let header = try decoder.decode(Header.self, from: data)
            guard header.formatVersion <= formatVersion else {
                throw FormFileError("written by a newer mi (format \(header.formatVersion)) — update mi")
            }
            let body = try decoder.decode(Body.self, from: data)
            let template = try TemplateCoding().decode(body.template, source: header.summary.templateID)
            let summary = header.summary
            var form = Form(id: summary.id, name: summary.name, user: summary.user, template: template,
                            createdAt: summary.createdAt)
            form.status = summary.status
            form.updatedAt = summary.updatedAt
            form.submittedAt = summary.submittedAt
            form.returnedAt = summary.returnedAt
            form.returnNote = body.returnNote
            form.answers = body.answers
            form.audit = body.audit
            form.foremanComments = body.foremanComments
            form.userDisplayName = body.userDisplayName
            form.consent = body.consent
            form.timeZone = body.timeZone
            form.repeats = body.repeats ?? [:]
            form.language = body.language
            if let location = body.startLocation, location != .null {
                do {
                    form.startLocation = try Geopoint(json: location)
                } catch {
                    throw FormFileError("its startLocation is not a location: \(error.rule)")
                }
            }
            return form
        } catch let error as DecodingError {
            throw FormFileError(error.summary)
        } catch let error as TemplateError {
            throw FormFileError("its template copy is invalid: \(error.localizedDescription)")
        }
    }

    /// The `scores` snapshot a form.json claims (what its writer computed), or nil when it has
    /// none or it is not an object of numbers and strings. Only for comparing with the scores
    /// recomputed from the answers: MI never trusts it.
    public static func claimedScores(_ data: Data) -> [String: ScoreValue]? {
        guard let raw = TopLevelJSONScanner(keys: ["scores"]).values(in: data)?["scores"] else { return nil }
        return try? decoder().decode([String: ScoreValue].self, from: Data(raw))
    }

    /// The top-level keys of form.json that make the header: the format and the summary.
    static let headerKeys: Set<String> = {
        let encoded = (try? encoder().encode(Header(formatVersion: formatVersion, summary: FormSummary.example))) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: encoded)) as? [String: Any] ?? [:]
        return Set(object.keys).union(["submittedAt", "returnedAt"])
    }()

    /// Decodes only the summary: the header's keys are picked out wherever they stand in the
    /// file and the rest is skipped unread. A file the scanner cannot follow, or whose header
    /// is not in the plain form `mi` writes, is decoded whole, so its error names what is wrong.
    public static func decodeSummary(_ data: Data) throws -> FormSummary {
        if let values = TopLevelJSONScanner(keys: headerKeys).values(in: data) {
            if let version = values["formatVersion"].flatMap(HeaderValue.int), version > formatVersion {
                throw FormFileError("written by a newer mi (format \(version)) — update mi")
            }
            if let summary = HeaderValue.summary(from: values) { return summary }
        }
        return try decode(data).summary
    }
}

/// Reads the header's plain values straight from their JSON bytes: strings without escapes,
/// whole numbers, and dates as `mi` writes them (`2026-11-23T06:56:03Z`). Anything else gives
/// nil, and the caller falls back to the JSON decoder.
enum HeaderValue {
    static func summary(from values: [String: [UInt8]]) -> FormSummary? {
        func string(_ key: String) -> String? { values[key].flatMap(Self.string) }
        func int(_ key: String) -> Int? { values[key].flatMap(Self.int) }
        func date(_ key: String) -> Date? { values[key].flatMap(Self.date) }
        /// nil when absent or null; `.some(nil)` when present but not readable here.
        func optionalDate(_ key: String) -> Date?? {
            guard let raw = values[key], raw != Array("null".utf8) else { return .some(nil) }
            guard let date = Self.date(raw) else { return .none }
            return .some(date)
        }
        guard let id = string("id").flatMap(FormID.init), let name = string("name"), let user = string("user"),
              let status = string("status").flatMap(Form.Status.init(rawValue:)),
              let templateID = string("templateID"), let templateTitle = string("templateTitle"),
              let templateVersion = int("templateVersion"), let createdAt = date("createdAt"), let updatedAt = date("updatedAt"),
              let submittedAt = optionalDate("submittedAt"), let returnedAt = optionalDate("returnedAt"),
              let questions = int("questions"), let answered = int("answered"), let media = int("media")
        else { return nil }
        return FormSummary(id: id, name: name, user: user, status: status, templateID: templateID,
                           templateTitle: templateTitle, templateVersion: templateVersion, createdAt: createdAt,
                           updatedAt: updatedAt, submittedAt: submittedAt, returnedAt: returnedAt,
                           questions: questions, answered: answered, media: media)
    }

    /// A JSON string with no escapes.
    static func string(_ raw: [UInt8]) -> String? {
        guard raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\""),
              !raw.contains(UInt8(ascii: "\\")) else { return nil }
        return String(decoding: raw[1..<(raw.count - 1)], as: UTF8.self)
    }

    /// A JSON whole number.
    static func int(_ raw: [UInt8]) -> Int? {
        Int(String(decoding: raw, as: UTF8.self))
    }

    /// `"yyyy-MM-ddTHH:mm:ssZ"`, in UTC.
    static func date<Bytes: RandomAccessCollection<UInt8>>(_ raw: Bytes) -> Date? where Bytes.Index == Int {
        guard raw.count == 22, raw[0] == UInt8(ascii: "\""), raw[21] == UInt8(ascii: "\""),
              raw[5] == UInt8(ascii: "-"), raw[8] == UInt8(ascii: "-"), raw[11] == UInt8(ascii: "T"),
              raw[14] == UInt8(ascii: ":"), raw[17] == UInt8(ascii: ":"), raw[20] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(raw[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(1..<5), let month = number(6..<8), let day = number(9..<11),
              let hour = number(12..<14), let minute = number(15..<17), let second = number(18..<20),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = UTCDay.daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }
}

extension FormSummary {
    /// A summary with every field set, to list the keys a header has.
    static let example = FormSummary(
        id: FormID(), name: "", user: "", status: .incomplete, templateID: "", templateTitle: "", templateVersion: 1,
        createdAt: Date(), updatedAt: Date(), submittedAt: Date(), returnedAt: Date(), questions: 0, answered: 0, media: 0)
}

/// form.json exists but cannot be understood.
public struct FormFileError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
