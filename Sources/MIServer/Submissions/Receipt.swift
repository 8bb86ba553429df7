import Foundation

/// What the server stored for an upload: every part with its size and SHA-256. The client
/// deletes its local copy only when every local hash matches.
public struct Receipt: Codable, Sendable, Equatable {
    /// The form's UUID, lowercase: the upload's idempotency key.
    public var id: String
    /// The technician the form belongs to.
    public var user: String
    public var formName: String
    /// The foreman who uploaded it.
    public var uploadedBy: String
    /// Whole seconds, so the stored receipt and the first answer are identical.
    public var receivedAt: Date
    /// `form` first, then the media in the order received.
    public var parts: [Part]

    public struct Part: Codable, Sendable, Equatable {
        /// The multipart part name: `form`, or the media name (`Qid1(3).mp4`).
        public var name: String
        public var filename: String
        public var size: Int64
        /// Lowercase hex.
        public var sha256: String

        public init(name: String, filename: String, size: Int64, sha256: String) {
            self.name = name
            self.filename = filename
            self.size = size
            self.sha256 = sha256
        }
    }

    public init(id: String, user: String, formName: String, uploadedBy: String, receivedAt: Date, parts: [Part]) {
        self.id = id
        self.user = user
        self.formName = formName
        self.uploadedBy = uploadedBy
        self.receivedAt = receivedAt
        self.parts = parts
    }

    /// Same content: the same set of part names, each with the same SHA-256.
    public func hasSameContent(as other: Receipt) -> Bool {
        Dictionary(parts.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
            == Dictionary(other.parts.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
            && parts.count == other.parts.count
    }
}
