import Foundation

/// `{"error": {"message": "…"}}`: the body of every error response of mi-server; a refusal
/// scripts branch on adds a stable `code` (`once-per-user`, `consent-required`).
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The inner object.
    public struct Detail: Codable, Sendable, Equatable {
        /// What happened and what to do, in one sentence.
        public var message: String
        /// A stable kebab-case identifier of the refusal, when it has one (absent otherwise).
        public var code: String?
    }

    /// The error.
    public var error: Detail

    /// 409: the user already has a submission of the once-per-user template.
    public static let oncePerUserCode = "once-per-user"
    /// 422: the form lacks the acceptance of its template's consent text.
    public static let consentRequiredCode = "consent-required"

    /// The body for `message` (and `code`).
    public init(message: String, code: String? = nil) {
        error = Detail(message: message, code: code)
    }

    /// The code of an error body, or nil when `data` is something else or has none.
    public static func code(in data: Data) -> String? {
        (try? WireJSON.decoder().decode(APIErrorBody.self, from: data))?.error.code
    }

    /// The message of an error body, or nil when `data` is something else (or the message is blank).
    public static func message(in data: Data) -> String? {
        guard let body = try? WireJSON.decoder().decode(APIErrorBody.self, from: data) else { return nil }
        let message = body.error.message.trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? nil : message
    }
}
