import Foundation

/// One part of an upload (`POST /api/v1/submissions`, multipart/form-data): its part name and
/// the file it streams from. The first part is the form (`formName`, sent as `formFilename`),
/// then one per media file, whose part name and filename are the media name (`Qid1(3).mp4`).
public struct UploadPart: Sendable, Equatable {
    /// The part name of the form.json part.
    public static let formName = "form"
    /// The filename the form.json part is sent (and stored) under.
    public static let formFilename = Store.formFileName

    /// `form`, or the media name.
    public var name: String
    /// The file on disk; it is streamed while sending, never read into memory whole.
    public var file: URL

    /// A part named `name` with the bytes of `file`.
    public init(name: String, file: URL) {
        self.name = name
        self.file = file
    }

    /// The form.json part.
    public static func form(_ file: URL) -> UploadPart { UploadPart(name: formName, file: file) }

    /// Whether this is the form.json part.
    public var isForm: Bool { name == Self.formName }
}
