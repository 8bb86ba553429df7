import Foundation

/// What a media file is, from its extension.
public enum MediaKind: String, Sendable, Codable {
    case photo, video, audio

    static let extensions: [String: MediaKind] = [
        "jpg": .photo, "jpeg": .photo, "png": .photo, "heic": .photo, "gif": .photo, "webp": .photo,
        "mp4": .video, "mov": .video, "m4v": .video, "avi": .video, "mkv": .video, "webm": .video, "3gp": .video,
        "m4a": .audio, "mp3": .audio, "wav": .audio, "aac": .audio, "caf": .audio, "ogg": .audio, "opus": .audio,
        "flac": .audio,
    ]

    static let contentTypes: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "heic": "image/heic", "gif": "image/gif",
        "webp": "image/webp",
        "mp4": "video/mp4", "mov": "video/quicktime", "m4v": "video/x-m4v", "avi": "video/x-msvideo",
        "mkv": "video/x-matroska", "webm": "video/webm", "3gp": "video/3gpp",
        "m4a": "audio/mp4", "mp3": "audio/mpeg", "wav": "audio/wav", "aac": "audio/aac", "caf": "audio/x-caf",
        "ogg": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
    ]

    /// The media type to serve the file `name` with (from its extension, as its kind is):
    /// `application/octet-stream` for an extension that is no known media.
    public static func contentType(ofFileNamed name: String) -> String {
        contentTypes[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// "1 photo attached", "3 audio recordings attached": a media answer in words.
    public func attached(_ count: Int) -> String {
        let noun: String
        switch self {
        case .photo: noun = count == 1 ? "photo" : "photos"
        case .video: noun = count == 1 ? "video" : "videos"
        case .audio: noun = count == 1 ? "audio recording" : "audio recordings"
        }
        return "\(count) \(noun) attached"
    }

    public init?(extension ext: String) {
        guard let kind = Self.extensions[ext.lowercased()] else { return nil }
        self = kind
    }

    static func of(_ file: URL) throws -> MediaKind {
        let ext = file.pathExtension
        guard let kind = MediaKind(extension: ext) else {
            throw WorkflowError.notMedia(file: file.lastPathComponent, known: extensions.keys.sorted())
        }
        return kind
    }
}

/// A media file of a form.
public struct MediaFile: Sendable, Equatable, Codable {
    public var name: String
    public var questionID: String
    public var kind: MediaKind
    public var bytes: Int64?
    public var missing: Bool = false

    public init(name: String, questionID: String, kind: MediaKind, bytes: Int64?, missing: Bool = false) {
        self.name = name
        self.questionID = questionID
        self.kind = kind
        self.bytes = bytes
        self.missing = missing
    }
}

/// The seed's media names: `Qid<question index from 0>(<n>).<ext>`, n counting from 1 per
/// question; an answer in a repeat instance adds its instance numbers (`Qid4_2(1).jpg` for
/// `pumps[2]/photo`, `Qid7_2_1(1).jpg` two repeats deep), so two instances never share a name.
/// The number is one past every name of that stem in form.json or on disk, so a name is never
/// reused, even after an instance is removed and the ones after it renumbered.
public enum MediaNaming {
    public static func name(questionIndex: Int, instance: [InstanceStep] = [], number: Int, extension ext: String) -> String {
        "\(stem(questionIndex: questionIndex, instance: instance))(\(number)).\(ext)"
    }

    static func stem(questionIndex: Int, instance: [InstanceStep]) -> String {
        "Qid\(questionIndex)" + instance.map { "_\($0.index)" }.joined()
    }

    /// The number of a name of this stem's media (`Qid1(3).mp4` → 3 for `Qid1`), else nil.
    static func number(in name: String, stem: String) -> Int? {
        let prefix = stem + "("
        guard name.hasPrefix(prefix), let close = name.firstIndex(of: ")") else { return nil }
        return Int(name[name.index(name.startIndex, offsetBy: prefix.count)..<close])
    }

    /// One past the highest number used by the stem, in form.json or on disk (a file a killed
    /// attach left behind is never overwritten).
    static func nextName(questionIndex: Int, instance: [InstanceStep] = [], extension ext: String, form: Form, folder: URL) throws -> String {
        let stem = stem(questionIndex: questionIndex, instance: instance)
        let onDisk = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let used = (form.answers.values.flatMap(\.media) + onDisk).compactMap { number(in: $0, stem: stem) }
        let name = name(questionIndex: questionIndex, instance: instance, number: (used.max() ?? 0) + 1, extension: ext)
        return try SafeName.check(name, as: "media name")
    }
}
