import Foundation

/// What a `PUT /api/v1/submissions/{id}` holds, sent up front in the `MI-Manifest` header so the
/// server can decide before the body: every part's name and size, its SHA-256 when the client
/// already knows it, and for a media file sent resumably the id of its finished upload.
///
/// Header syntax: entries separated by `,`, each the percent-encoded part name followed by
/// `;size=N`, optionally `;sha256=<64 hex>` and `;upload=<upload id>`, e.g.
/// `form;size=812, Qid1%283%29.mp4;size=52428800;sha256=9f86…;upload=3f2c…`.
public struct UploadManifest: Sendable, Equatable {
    /// The header's name.
    public static let headerName = "MI-Manifest"
    /// The most entries accepted (a form with more media files is not a form).
    public static let maximumEntries = 1000

    /// One part.
    public struct Entry: Sendable, Equatable {
        /// `form`, or the media name.
        public var name: String
        /// Its size in bytes.
        public var size: Int64
        /// Lowercase hex SHA-256, when known before sending.
        public var sha256: String?
        /// The resumable upload holding its bytes (then it is not in the body).
        public var upload: String?

        /// An entry as given.
        public init(name: String, size: Int64, sha256: String? = nil, upload: String? = nil) {
            self.name = name
            self.size = size
            self.sha256 = sha256
            self.upload = upload
        }
    }

    /// The parts, the form first.
    public var entries: [Entry]

    /// A manifest of `entries`.
    public init(entries: [Entry]) { self.entries = entries }

    /// The entry named `name`.
    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// Whether every part's SHA-256 is given.
    public var isComplete: Bool { entries.allSatisfy { $0.sha256 != nil } }

    /// The header's value.
    public var headerValue: String {
        entries.map { entry in
            var text = Self.encode(entry.name) + ";size=\(entry.size)"
            if let sha256 = entry.sha256 { text += ";sha256=\(sha256)" }
            if let upload = entry.upload { text += ";upload=\(Self.encode(upload))" }
            return text
        }.joined(separator: ", ")
    }

    /// Reads a header value; throws `UploadManifestError` saying what is wrong.
    public init(headerValue: String) throws(UploadManifestError) {
        var entries: [Entry] = []
        for item in headerValue.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = item.trimmingCharacters(in: .whitespaces).split(separator: ";", omittingEmptySubsequences: false)
            guard let first = fields.first, let name = String(first).removingPercentEncoding, !name.isEmpty else {
                throw .malformed("an entry has no part name")
            }
            guard !entries.contains(where: { $0.name == name }) else { throw .malformed("part \"\(name)\" is listed twice") }
            var size: Int64?
            var entry = Entry(name: name, size: 0)
            for field in fields.dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { throw .malformed("\"\(field)\" is not key=value") }
                switch pair[0] {
                case "size":
                    guard let value = Int64(pair[1]), value >= 0, pair[1].allSatisfy(\.isASCII) else {
                        throw .malformed("the size of \"\(name)\" is not a byte count")
                    }
                    size = value
                case "sha256":
                    let hex = pair[1].lowercased()
                    guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit && $0.isASCII }) else {
                        throw .malformed("the SHA-256 of \"\(name)\" is not 64 hex digits")
                    }
                    entry.sha256 = hex
                case "upload":
                    guard let upload = pair[1].removingPercentEncoding, !upload.isEmpty else {
                        throw .malformed("the upload of \"\(name)\" is empty")
                    }
                    entry.upload = upload
                default:
                    throw .malformed("unknown field \"\(pair[0])\"")
                }
            }
            guard let size else { throw .malformed("\"\(name)\" has no size") }
            entry.size = size
            entries.append(entry)
            guard entries.count <= Self.maximumEntries else { throw .malformed("more than \(Self.maximumEntries) parts") }
        }
        guard entries.first?.name == UploadPart.formName else {
            throw .malformed("the first part must be \"\(UploadPart.formName)\"")
        }
        guard entries.first?.upload == nil else { throw .malformed("the form part cannot be a resumable upload") }
        self.entries = entries
    }

    private static let unescaped = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~()!*'[]@+&$:/")

    /// Names (with `,`, `;`, `%`, `=`, spaces and anything not printable ASCII) percent-encoded.
    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unescaped) ?? text
    }

    /// How a stored submission compares with a manifest, decided before any body byte.
    public enum Comparison: Sendable, Equatable {
        /// Every part has the same name and size and every given SHA-256 matches, all given.
        case same
        /// Same names and sizes, but the hashes are not all given: the stored receipt is the answer,
        /// and the client proves it against its files before deleting anything.
        case sameShape
        /// A name, size or given SHA-256 differs.
        case different
    }

    /// Compares the stored `receipt` with this manifest.
    public func compare(with receipt: Receipt) -> Comparison {
        guard receipt.parts.count == entries.count else { return .different }
        for entry in entries {
            guard let stored = receipt.part(named: entry.name), stored.size == entry.size else { return .different }
            if let sha256 = entry.sha256, sha256 != stored.sha256.lowercased() { return .different }
        }
        return isComplete ? .same : .sameShape
    }
}

/// Why an `MI-Manifest` header was refused.
public enum UploadManifestError: ClassifiedError, Sendable, Equatable {
    case malformed(String)

    public var failureClass: FailureClass { .badData }
    public var code: String { "manifest-malformed" }
    public var errorDescription: String? {
        switch self {
        case .malformed(let problem): return "the \(UploadManifest.headerName) header is not valid: \(problem)"
        }
    }
}
