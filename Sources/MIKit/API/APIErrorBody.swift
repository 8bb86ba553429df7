import Foundation

/// `{"error": {"message": "…"}}`: the body of every error response of mi-server.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The inner object.
    public struct Detail: Codable, Sendable, Equatable {
        /// What happened and what to do, in one sentence.
        public var message: String
    }

    /// The error.
    public var error: Detail

    /// The body for `message`.
    public init(message: String) {
        error = Detail(message: message)
    }

    /// The message of an error body, or nil when `data` is something else (or the message is blank).
    public static func message(in data: Data) -> String? {
        guard let body = try? WireJSON.decoder().decode(APIErrorBody.self, from: data) else { return nil }
        let message = body.error.message.trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? nil : message
    }
}
