import Foundation

/// One entry of `GET /api/v1/templates` (the list is sorted by id).
public struct TemplateListing: Codable, Sendable, Equatable {
    /// The template's id, for `GET /api/v1/templates/{id}`.
    public var id: String
    /// The template's title.
    public var title: String
    /// The template's own version number.
    public var version: Int
    /// Lowercase hex SHA-256 of the template file's bytes, exactly as served.
    public var sha256: String

    /// A listing entry.
    public init(id: String, title: String, version: Int, sha256: String) {
        self.id = id
        self.title = title
        self.version = version
        self.sha256 = sha256
    }
}
