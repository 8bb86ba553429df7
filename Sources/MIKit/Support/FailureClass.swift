import Foundation

/// The kind of a failure, which decides `mi`'s exit status (sysexits.h) and the `code` of its
/// JSON error document. Scripts branch on these, so each area's error enum maps every case to one.
public enum FailureClass: String, Sendable, CaseIterable {
    /// The command line is wrong (EX_USAGE, 64).
    case usage
    /// The data given is wrong: an invalid answer, a malformed answers file or template (EX_DATAERR, 65).
    case badData
    /// No such form, file, template or media (EX_NOINPUT, 66).
    case notFound
    /// A service answered and refused: a conflict, a full disk, a printer, a busy store (EX_UNAVAILABLE, 69).
    case refused
    /// The server or the directory could not be reached or timed out: try again later (EX_TEMPFAIL, 75).
    case unreachable
    /// Not logged in, a session expired, wrong credentials, or the wrong role (EX_NOPERM, 77).
    case notPermitted
    /// Config.plist or a file it names is wrong (EX_CONFIG, 78).
    case configuration
    /// A step that should not fail did: a bug or an unexpected state (EX_SOFTWARE, 70).
    case internalFailure

    /// The process exit status for this class (sysexits.h).
    public var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .badData: return 65
        case .notFound: return 66
        case .refused: return 69
        case .internalFailure: return 70
        case .unreachable: return 75
        case .notPermitted: return 77
        case .configuration: return 78
        }
    }
}

/// An error that knows its class. Every error enum of MI's libraries conforms, so the CLI can
/// turn any of them into an exit status and a JSON error without knowing the area.
public protocol ClassifiedError: LocalizedError {
    /// Which class of failure this is.
    var failureClass: FailureClass { get }
    /// A stable, lowercase identifier of the case for scripts (`form-not-found`), printed as
    /// `error.code` with `--json`.
    var code: String { get }
}
