import Foundation
import MIDevices
import MIKit

/// The code a photo holds, read with zbarimg (`BarcodeReader`) for `mi answer --from-image`
/// and `:scan` in `mi fill`. Exactly one code is taken: a photo showing two different codes
/// (an asset tag beside the maker's label) is refused rather than guessed, naming them, so the
/// technician types the one meant; the same code twice counts once.
enum ScannedCode {
    static func read(_ path: String, question: String) throws -> String {
        let codes: [String]
        do { codes = try BarcodeReader().read(imageAt: URL(fileURLWithPath: path)) } catch {
            throw ScanError.unread(question: question, error)
        }
        var distinct: [String] = []
        for code in codes where !distinct.contains(code) { distinct.append(code) }
        guard distinct.count == 1, let code = distinct.first else {
            throw ScanError.severalCodes(path: path, question: question, codes: distinct)
        }
        return code
    }
}

/// A photo that does not say one code.
enum ScanError: ClassifiedError, Equatable {
    /// The photo holds several different codes.
    case severalCodes(path: String, question: String, codes: [String])
    /// zbarimg read no code (or could not read the photo, or is missing).
    case unread(question: String, BarcodeError)

    var failureClass: FailureClass {
        switch self {
        case .severalCodes: return .badData
        case .unread(_, let error): return error.failureClass
        }
    }

    var code: String {
        switch self {
        case .severalCodes: return "several-barcodes"
        case .unread(_, let error): return error.code
        }
    }

    var errorDescription: String? {
        switch self {
        case .unread(let question, let error):
            return "question \(question): \(error.errorDescription ?? error.code) — nothing was saved"
        case .severalCodes(let path, let question, let codes):
            let listed = codes.map { "\"\(DisplayText.escaped($0))\"" }.joined(separator: ", ")
            return "question \(question): \(SafeName.printable(path)) shows \(codes.count) different codes (\(listed)) — nothing was saved; type the one question \(question) means, and attach the photo with `mi attach`"
        }
    }
}
