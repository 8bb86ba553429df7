import Foundation

/// A form's identity, the same from `mi` to mi-server's database: a UUID, always written in
/// lowercase (`3f2a…`), read in any case. form.json, the HTTP API, receipts, media URLs, the
/// database and the exports all spell it through `description`.
public struct FormID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    public let uuid: UUID

    /// A new, random id.
    public init() { uuid = UUID() }

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` spells (a UUID in either case), or nil when it is not one.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// The lowercase spelling.
    public var description: String { uuid.uuidString.lowercased() }

    public static func < (lhs: FormID, rhs: FormID) -> Bool { lhs.description < rhs.description }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = FormID(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a form id (a UUID)")
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
