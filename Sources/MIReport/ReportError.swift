import Foundation

/// What can go wrong while printing a form; every message says what to do next.
public enum ReportError: LocalizedError, Sendable, Equatable {
    /// cairo or pango refused to set up the PDF (out of memory, a broken font setup).
    case rendering(String)
    /// The PDF could not be written where it was asked for.
    case cannotWrite(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .rendering(let reason):
            return "could not lay out the PDF: \(reason) — check that the cairo, pango and fontconfig libraries and a font (DejaVu Sans) are installed"
        case .cannotWrite(let path, let reason):
            return "could not write the PDF to \(path): \(reason) — choose a file in a folder you can write to; nothing was written"
        }
    }
}
