import Foundation

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
    /// lists exactly the local parts — each with the same size and SHA-256, and no part that was
    /// not sent (a receipt that lists more is not a receipt of this upload). Throws the first
    /// difference.
    public func verify(formID: FormID, parts local: [PartDigest]) throws(ReceiptError) {
        guard id == formID else { throw .otherForm(receipt: id.description, form: formID.description) }
        for part in local {
            guard let stored = parts.first(where: { $0.name == part.name }) else { throw .partMissing(part.name) }
            guard stored.size == part.size, stored.sha256.lowercased() == part.sha256.lowercased() else {
                throw .partDiffers(name: part.name, stored: PartDigest(name: stored.name, size: stored.size, sha256: stored.sha256),
                                   local: part)
            }
        }
        let sent = Set(local.map(\.name))
        if let extra = parts.first(where: { !sent.contains($0.name) }) { throw .partNotSent(extra.name) }
        if parts.count != Set(parts.map(\.name)).count {
            let names = parts.map(\.name)
            let twice = names.first { name in names.filter { $0 == name }.count > 1 } ?? ""
            throw .partListedTwice(twice)
        }
    }
}

/// Why an upload's local copy is kept: the receipt does not prove the server has every byte.
public enum ReceiptError: ClassifiedError, Sendable, Equatable {
    /// The receipt names another form.
    case otherForm(receipt: String, form: String)
    /// The receipt does not list a part that was sent.
    case partMissing(String)
    /// The receipt lists a part that was not sent.
    case partNotSent(String)
    /// The receipt lists one part twice.
    case partListedTwice(String)
    /// The server stored a part with another size or hash.
    case partDiffers(name: String, stored: PartDigest, local: PartDigest)
    /// A local file changed (size, time or inode) while it was being sent.
    case changedDuringUpload(String)

    public var failureClass: FailureClass { .refused }

    public var code: String {
        switch self {
        case .otherForm: return "receipt-other-form"
        case .partMissing: return "receipt-part-missing"
        case .partNotSent: return "receipt-part-not-sent"
        case .partListedTwice: return "receipt-part-twice"
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
        case .partNotSent(let name):
            return "the server's receipt lists \(SafeName.printable(name)), which was not sent — it is not a receipt of this upload; the local copy is kept; upload again, and tell the administrator if it keeps happening"
        case .partListedTwice(let name):
            return "the server's receipt lists \(SafeName.printable(name)) twice — it is not a receipt of this upload; the local copy is kept; upload again, and tell the administrator if it keeps happening"
        case .partDiffers(let name, let stored, let local):
            return "the server stored \(name) with size \(stored.size) and SHA-256 \(stored.sha256.prefix(12))…, but the local file has \(local.size) and \(local.sha256.prefix(12))… — the local copy is kept; upload again"
        case .changedDuringUpload(let name):
            return "\(name) changed while it was being uploaded — the local copy is kept; upload the form again"
        }
    }
}
