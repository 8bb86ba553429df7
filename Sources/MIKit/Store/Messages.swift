import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A message waiting for a user at their next login (`Errors/<user>.json`), e.g. a form
/// reassigned away from them.
public struct UserMessage: Codable, Sendable, Equatable {
    public var at: Date
    public var text: String
    public init(at: Date, text: String) { self.at = at; self.text = text }
}

extension Store {
    private func messagesFile(for user: String) throws -> URL {
        errorsFolder.appendingPathComponent(try SafeName.check(user, as: "user name") + ".json")
    }

    /// The messages waiting for `user`, oldest first. The caller holds the lock.
    public func messages(for user: String) throws -> [UserMessage] {
        let file = try messagesFile(for: user)
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        do {
            return try FormFile.decoder().decode([UserMessage].self, from: data)
        } catch {
            throw StoreError.unreadableForm(path: file.path, reason: "not a list of messages")
        }
    }

    /// Adds a message for `user`. The caller holds the lock.
    public func post(_ message: UserMessage, to user: String) throws {
        let file = try messagesFile(for: user)
        let existing = try messages(for: user)
        try DurableFile.makeFolder(errorsFolder)
        let encoder = FormFile.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        try DurableFile.write(try encoder.encode(existing + [message]), to: file)
    }

    /// Removes the messages of `user` once shown. The caller holds the lock.
    public func clearMessages(for user: String) throws {
        let file = try messagesFile(for: user)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        guard unlink(file.path) == 0 else { throw DurableFile.error("remove", file) }
        try DurableFile.syncFolder(errorsFolder)
    }
}
