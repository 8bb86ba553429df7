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
                                           template: TemplateCoding().encode(form.template)))
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
            return form
        } catch let error as DecodingError {
            throw FormFileError(error.summary)
        } catch let error as TemplateError {
            throw FormFileError("its template copy is invalid: \(error.localizedDescription)")
        }
    }

    /// The top-level keys of form.json that make the header: the format and the summary.
    static let headerKeys: Set<String> = {
        let encoded = (try? encoder().encode(Header(formatVersion: formatVersion, summary: FormSummary.example))) ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: encoded)) as? [String: Any] ?? [:]
        return Set(object.keys).union(["submittedAt", "returnedAt"])
    }()

    /// Decodes only the summary: the header's keys are picked out wherever they stand in the
    /// file and the rest is skipped unread. A file the scanner cannot follow is decoded whole,
    /// so its error names what is wrong.
    public static func decodeSummary(_ data: Data) throws -> FormSummary {
        if let head = TopLevelJSONScanner(keys: headerKeys).extract(from: data),
           let header = try? decoder().decode(Header.self, from: head) {
            guard header.formatVersion <= formatVersion else {
                throw FormFileError("written by a newer mi (format \(header.formatVersion)) — update mi")
            }
            return header.summary
        }
        return try decode(data).summary
    }
}

extension FormSummary {
    /// A summary with every field set, to list the keys a header has.
    static let example = FormSummary(
        id: UUID(), name: "", user: "", status: .incomplete, templateID: "", templateTitle: "", templateVersion: 1,
        createdAt: Date(), updatedAt: Date(), submittedAt: Date(), returnedAt: Date(), questions: 0, answered: 0, media: 0)
}

/// form.json exists but cannot be understood.
public struct FormFileError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
