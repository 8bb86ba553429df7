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

    /// A part as sent: its file's identity when it was opened and the digest of what was read.
    public init(part: UploadPart, identity: FileIdentity, digest: PartDigest) {
        self.part = part
        self.identity = identity
        self.digest = digest
    }

    /// Reads `part` once to hash it, checked unchanged: for a part the server already held, so
    /// that its receipt can be proved against the file without sending it.
    public static func hashing(_ part: UploadPart) throws -> SentPart {
        let reader = try HashingFileReader(name: part.name, url: part.file)
        try reader.skip(reader.size)
        return SentPart(part: part, identity: reader.identity, digest: try reader.finish())
    }
}

extension Workflow {
    /// The rule that guards deleting an uploaded form: the receipt is for this form and lists
    /// every part with the size and SHA-256 that was hashed (`Receipt.verify`), and no file
    /// changed since it was hashed. Only then is the local copy removed; otherwise it is kept
    /// and the first difference thrown. The caller holds the store's lock.
    public func completeUpload(_ location: FormLocation, formID: FormID, sent: [SentPart], receipt: Receipt) throws {
        try receipt.verify(formID: formID, parts: sent.map(\.digest))
        for part in sent where FileIdentity(part.part.file) != part.identity {
            throw ReceiptError.changedDuringUpload(part.part.name)
        }
        try store.remove(location)
    }
}
