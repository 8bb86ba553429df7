import Foundation

/// mi-server's proof that it stored a submission: the SHA-256 and size of every part it kept.
/// Local data may be deleted only when every local file's hash matches its part here.
public struct Receipt: Codable, Sendable, Equatable {
    /// The form's id.
    public var id: FormID
    /// The technician who filled in the form.
    public var user: String
    /// The form's name as the technician gave it.
    public var formName: String
    /// The foreman who uploaded it.
    public var uploadedBy: String
    /// When the server first stored it.
    public var receivedAt: Date
    /// Every stored part, the form first.
    public var parts: [Part]
    /// The scores the server computed from the answers when it stored the form (never the
    /// client's); absent when the form's template names no scorer.
    public var scores: [String: ScoreValue]?
    /// Which stored version of the form this is: absent for the first, 2 for the corrected form
    /// that superseded it after the office sent it back, and so on (`storedVersion`).
    public var version: Int?

    /// The stored version: 1, or the later one `version` names.
    public var storedVersion: Int { version ?? 1 }

    /// One stored part of the multipart upload.
    public struct Part: Codable, Sendable, Equatable {
        /// `form`, or the media name.
        public var name: String
        /// The part's filename (`form.json`, or the media name).
        public var filename: String
        /// Bytes stored.
        public var size: Int64
        /// Lowercase hex SHA-256 of the stored bytes.
        public var sha256: String

        /// A stored part as the server describes it.
        public init(name: String, filename: String, size: Int64, sha256: String) {
            self.name = name
            self.filename = filename
            self.size = size
            self.sha256 = sha256
        }
    }

    /// A receipt as the server describes it.
    public init(id: FormID, user: String, formName: String, uploadedBy: String, receivedAt: Date, parts: [Part],
                scores: [String: ScoreValue]? = nil, version: Int? = nil) {
        self.id = id
        self.user = user
        self.formName = formName
        self.uploadedBy = uploadedBy
        self.receivedAt = receivedAt
        self.parts = parts
        self.scores = scores
        self.version = version.flatMap { $0 > 1 ? $0 : nil }
    }

    /// The stored part named `name`, if any.
    public func part(named name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// Same content: the same set of part names, each with the same SHA-256.
    public func hasSameContent(as other: Receipt) -> Bool {
        Dictionary(parts.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
            == Dictionary(other.parts.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
            && parts.count == other.parts.count
    }
}
