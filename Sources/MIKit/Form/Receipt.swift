import Foundation

/// mi-server's proof that it stored a submission: the SHA-256 and size of every part it kept.
/// Local data may be deleted only when every local file's hash matches its part here.
public struct Receipt: Codable, Sendable, Equatable {
    /// The form's UUID (lowercase).
    public var id: String
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
    public init(id: String, user: String, formName: String, uploadedBy: String, receivedAt: Date, parts: [Part]) {
        self.id = id
        self.user = user
        self.formName = formName
        self.uploadedBy = uploadedBy
        self.receivedAt = receivedAt
        self.parts = parts
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

/// What a local part of an upload is: its name, its size and the SHA-256 of its bytes.
public struct PartDigest: Sendable, Equatable {
    public var name: String
    public var size: Int64
    /// Lowercase hex.
    public var sha256: String
    public init(name: String, size: Int64, sha256: String) {
        self.name = name
        self.size = size
        self.sha256 = sha256
    }
}

extension Receipt {
    /// The rule that guards every deletion after an upload: the receipt is for this form and
    /// lists every local part with the same size and SHA-256. Throws the first difference.
    public func verify(formID: UUID, parts local: [PartDigest]) throws(ReceiptError) {
        let expected = formID.uuidString.lowercased()
        guard id.lowercased() == expected else { throw .otherForm(receipt: id, form: expected) }
        for part in local {
            guard let stored = parts.first(where: { $0.name == part.name }) else { throw .partMissing(part.name) }
            guard stored.size == part.size, stored.sha256.lowercased() == part.sha256.lowercased() else {
                throw .partDiffers(name: part.name, stored: PartDigest(name: stored.name, size: stored.size, sha256: stored.sha256),
                                   local: part)
            }
        }
    }
}

/// Why an upload's local copy is kept: the receipt does not prove the server has every byte.
public enum ReceiptError: ClassifiedError, Sendable, Equatable {
    /// The receipt names another form.
    case otherForm(receipt: String, form: String)
    /// The receipt does not list a part that was sent.
    case partMissing(String)
    /// The server stored a part with another size or hash.
    case partDiffers(name: String, stored: PartDigest, local: PartDigest)
    /// A local file changed (size, time or inode) while it was being sent.
    case changedDuringUpload(String)

    public var failureClass: FailureClass { .refused }

    public var code: String {
        switch self {
        case .otherForm: return "receipt-other-form"
        case .partMissing: return "receipt-part-missing"
        case .partDiffers: return "receipt-part-differs"
        case .changedDuringUpload: return "changed-during-upload"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .otherForm(let receipt, let form):
            return "the server's receipt is for form \(receipt), not \(form) — the local copy is kept; upload again"
        case .partMissing(let name):
            return "the server's receipt does not list \(name) — the local copy is kept; upload again"
        case .partDiffers(let name, let stored, let local):
            return "the server stored \(name) with size \(stored.size) and SHA-256 \(stored.sha256.prefix(12))…, but the local file has \(local.size) and \(local.sha256.prefix(12))… — the local copy is kept; upload again"
        case .changedDuringUpload(let name):
            return "\(name) changed while it was being uploaded — the local copy is kept; upload the form again"
        }
    }
}
