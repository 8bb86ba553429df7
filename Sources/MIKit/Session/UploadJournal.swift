import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `mi upload` remembers of a form between runs, so a run cut off or killed costs little:
/// the resumable upload holding each large media file on the server (to continue from its
/// offset), and every part's SHA-256 once it was read in full (so a retry after a lost answer
/// sends the whole manifest and the server answers before the body).
///
/// An entry counts only while its file has the identity recorded with it; the journal is a
/// cache, never trusted over the files. Removed when the form is uploaded.
public struct UploadJournal: Codable, Sendable, Equatable {
    /// `scheme://domain:port` of the server the uploads were made to.
    public var server: String
    /// By part name.
    public var parts: [String: Entry]

    /// One part.
    public struct Entry: Codable, Sendable, Equatable {
        /// The file's identity when the entry was written.
        public var identity: FileIdentity
        /// The SHA-256 of the whole file, once it was read in full.
        public var sha256: String?
        /// The path of its resumable upload on the server (`/api/v1/uploads/…`).
        public var upload: String?
        /// When the resumable upload was created.
        public var uploadCreatedAt: Date?

        /// An entry as given.
        public init(identity: FileIdentity, sha256: String? = nil, upload: String? = nil, uploadCreatedAt: Date? = nil) {
            self.identity = identity
            self.sha256 = sha256
            self.upload = upload
            self.uploadCreatedAt = uploadCreatedAt
        }
    }

    /// An empty journal for `server`.
    public init(server: String, parts: [String: Entry] = [:]) {
        self.server = server
        self.parts = parts
    }

    /// The entry of part `name` if its file at `url` still has the recorded identity.
    public func entry(_ name: String, file url: URL) -> Entry? {
        guard let entry = parts[name], FileIdentity(url) == entry.identity else { return nil }
        return entry
    }

    /// `part` as sent, when its whole SHA-256 is recorded and its file is unchanged since.
    public func sentPart(_ part: UploadPart) -> SentPart? {
        guard let entry = entry(part.name, file: part.file), let sha256 = entry.sha256 else { return nil }
        return SentPart(part: part, identity: entry.identity,
                        digest: PartDigest(name: part.name, size: entry.identity.size, sha256: sha256))
    }
}

/// The journals, `$XDG_STATE_HOME/mi/uploads/<form id>.json`, owner-only, written atomically.
public struct UploadJournalStore: Sendable {
    /// The folder holding them.
    public let folder: URL

    /// The journals beside the session file.
    public init(sessions: SessionStore) {
        folder = sessions.folder.appendingPathComponent("uploads", isDirectory: true)
    }

    private func file(_ formID: FormID) -> URL {
        folder.appendingPathComponent(formID.description + ".json")
    }

    /// The journal of `formID` for `server`; nil when there is none, it is for another server or
    /// it cannot be read (it is only a cache: the upload then starts from the beginning).
    public func load(_ formID: FormID, server: String) -> UploadJournal? {
        guard let data = FileManager.default.contents(atPath: file(formID).path),
              let journal = try? FormFile.decoder().decode(UploadJournal.self, from: data),
              journal.server == server
        else { return nil }
        return journal
    }

    /// Saves the journal durably (before the bytes it describes are sent).
    public func save(_ journal: UploadJournal, for formID: FormID) throws {
        try DurableFile.makeFolder(folder)
        chmod(folder.path, 0o700)
        try DurableFile.write(try FormFile.encoder().encode(journal), to: file(formID), permissions: 0o600)
    }

    /// Forgets `formID` (uploaded, or deleted).
    public func remove(_ formID: FormID) {
        unlink(file(formID).path)
    }
}
