import Foundation

/// A part of an upload as it was when it was hashed: to prove, after the upload, that what the
/// server's receipt lists is still exactly what is on disk.
public struct SentPart: Sendable, Equatable {
    /// The part sent.
    public var part: UploadPart
    /// The file's identity before it was hashed.
    public var identity: FileIdentity
    /// Its size and SHA-256 as hashed.
    public var digest: PartDigest

    /// Notes each part's identity, then hashes it. The identity comes first, so a write while
    /// the file is hashed (or sent) shows as a changed identity afterwards.
    public static func snapshot(_ parts: [UploadPart]) throws -> [SentPart] {
        try parts.map { part in
            guard let identity = FileIdentity(part.file) else {
                throw StoreError.io(operation: "read", path: part.file.path, reason: String(cString: strerror(errno)))
            }
            let (size, hex) = try FileDigest.sha256(of: part.file)
            return SentPart(part: part, identity: identity, digest: PartDigest(name: part.name, size: size, sha256: hex))
        }
    }
}

extension Workflow {
    /// The rule that guards deleting an uploaded form: the receipt is for this form and lists
    /// every part with the size and SHA-256 that was hashed (`Receipt.verify`), and no file
    /// changed since it was hashed. Only then is the local copy removed; otherwise it is kept
    /// and the first difference thrown. The caller holds the store's lock.
    public func completeUpload(_ location: FormLocation, formID: UUID, sent: [SentPart], receipt: Receipt) throws {
        try receipt.verify(formID: formID, parts: sent.map(\.digest))
        for part in sent where FileIdentity(part.part.file) != part.identity {
            throw ReceiptError.changedDuringUpload(part.part.name)
        }
        try store.remove(location)
    }
}
