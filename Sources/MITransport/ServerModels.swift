import Foundation

/// A session token from `POST /api/v1/session`: who logged in, with which role, until when.
public struct ServerSession: Codable, Sendable, Equatable {
    /// Sent as `Authorization: Bearer <token>` on every other request.
    public var token: String
    /// The user name logged in with.
    public var user: String
    /// The name to greet the user with (from the directory).
    public var displayName: String
    /// `technician` or `foreman`.
    public var role: String
    /// When the token stops working (then: `mi login` again).
    public var expiresAt: Date

    /// A session as the server describes it.
    public init(token: String, user: String, displayName: String, role: String, expiresAt: Date) {
        self.token = token
        self.user = user
        self.displayName = displayName
        self.role = role
        self.expiresAt = expiresAt
    }
}

/// One entry of `GET /api/v1/templates`.
public struct TemplateListing: Codable, Sendable, Equatable {
    /// The template's id, for `ServerClient.template(id:)`.
    public var id: String
    public var title: String
    /// The template's own version number.
    public var version: Int
    /// Lowercase hex SHA-256 of the template file's bytes.
    public var sha256: String

    /// A listing entry as the server describes it.
    public init(id: String, title: String, version: Int, sha256: String) {
        self.id = id
        self.title = title
        self.version = version
        self.sha256 = sha256
    }
}


/// One file of an upload. The first is the form (`partName` "form", the form.json file); then one
/// per media file, whose `partName` is the media name (`Qid1(3).mp4`).
public struct UploadFile: Sendable, Equatable {
    /// The part name of the form.json part.
    public static let formPartName = "form"
    /// The filename the form.json part is sent under.
    public static let formFilename = "form.json"

    /// `form`, or the media name (which is also the part's filename).
    public var partName: String
    /// The file on disk; it is streamed while sending, never read into memory whole.
    public var file: URL

    /// A part named `partName` with the bytes of `file`.
    public init(partName: String, file: URL) {
        self.partName = partName
        self.file = file
    }

    /// The form.json part.
    public static func form(_ file: URL) -> UploadFile { UploadFile(partName: formPartName, file: file) }
}

/// Receives upload progress. Called on the uploading thread, at most ten times a second; `total`
/// is the whole multipart body's size (a little more than the files'). `finish` is called once
/// when the upload ends, whether it succeeded or not.
public protocol TransferProgress: AnyObject {
    /// `sent` of `total` bytes are on their way (never decreasing within one attempt; a retried
    /// upload starts again from 0).
    func update(sent: Int64, total: Int64)
    /// The upload is over, successfully or not.
    func finish()
}

/// The JSON coding the API uses: ISO 8601 dates in UTC (fractional seconds accepted when reading).
enum WireJSON {
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            throw DecodingError.dataCorruptedError(in: container,
                                                   debugDescription: "expected an ISO 8601 date, found \"\(text)\"")
        }
        return decoder
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

/// `{"error": {"message": "…"}}`, the body of every error response.
struct ErrorBody: Decodable {
    struct Inner: Decodable { var message: String }
    var error: Inner

    /// The message of an error body, or nil when the body is something else.
    static func message(in data: Data) -> String? {
        guard let body = try? JSONDecoder().decode(ErrorBody.self, from: data) else { return nil }
        let message = body.error.message.trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? nil : message
    }
}
