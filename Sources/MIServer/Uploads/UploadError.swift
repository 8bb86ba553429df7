/// Why the bytes of an upload — a multipart body or a resumable (tus) upload — cannot be taken,
/// with the sentence the client is shown. Storage code throws it; `HTTPRefusal` is the one place
/// that gives it an HTTP status.
struct UploadError: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// What the client sent cannot be taken as it is (a malformed body, a wrong upload).
        case refused
        /// The resumable upload is unknown, expired or another user's.
        case unknown
        /// Another request or server process is writing to the upload right now.
        case busy
        /// The client's offset is not the upload's: `current` is where it stands.
        case offsetMismatch(current: Int64)
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
