import MIKit

/// Why no code came out of a photo.
public enum BarcodeError: ClassifiedError, Equatable {
    /// zbarimg is not on this machine.
    case toolMissing
    /// The photo does not exist.
    case noSuchFile(String)
    /// The path is a folder or something else that is not a file.
    case notAFile(String)
    /// zbarimg could not read the file as an image; its own words.
    case unreadable(String, reason: String)
    /// The image was read and holds no code zbarimg knows.
    case noCode(String)
    /// zbarimg took longer than the time allowed (a huge or hostile image) and was stopped.
    case timedOut(String, seconds: Int)
    /// zbarimg failed in a way it does not document.
    case failed(String, status: Int32, reason: String)

    public var failureClass: FailureClass {
        switch self {
        case .toolMissing: return .configuration
        case .noSuchFile: return .notFound
        case .notAFile, .unreadable, .noCode, .timedOut: return .badData
        case .failed: return .internalFailure
        }
    }

    public var code: String {
        switch self {
        case .toolMissing: return "zbarimg-missing"
        case .noSuchFile: return "image-not-found"
        case .notAFile: return "image-not-a-file"
        case .unreadable: return "image-unreadable"
        case .noCode: return "no-barcode"
        case .timedOut: return "image-too-slow"
        case .failed: return "zbarimg-failed"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .toolMissing:
            return "reading a code from a photo needs zbarimg, which is not installed — install Debian's zbar-tools package (apt-get install zbar-tools), or type the code"
        case .noSuchFile(let path):
            return "\(Self.shown(path)): no such file"
        case .notAFile(let path):
            return "\(Self.shown(path)) is not a file"
        case .unreadable(let path, let reason):
            return "\(Self.shown(path)) cannot be read as an image (\(reason))"
        case .noCode(let path):
            return "no barcode or QR code found in \(Self.shown(path)) — take the photo again closer and in focus, or type the code"
        case .timedOut(let path, let seconds):
            return "reading \(Self.shown(path)) took more than \(seconds) s and was stopped — is it a photo? Try a smaller one, or type the code"
        case .failed(let path, let status, let reason):
            return "zbarimg failed on \(Self.shown(path)) (exit status \(status)): \(reason)"
        }
    }

    static func shown(_ path: String) -> String { SafeName.printable(path) }
}
