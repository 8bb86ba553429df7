import Foundation

/// What can go wrong in the store; every message says what to do next.
public enum StoreError: ClassifiedError, Sendable, Equatable {
    case unsafeName(kind: String, name: String, reason: String)
    case io(operation: String, path: String, reason: String)
    case busy(path: String, seconds: Int)
    case exists(path: String)
    case unreadableForm(path: String, reason: String)
    /// No form of that name; `suggestions` are the closest names (for "did you mean …?").
    case formNotFound(String, user: String, suggestions: [String] = [])
    /// The name or id prefix typed matches several forms (a usage mistake: say which).
    case ambiguousForm(String, matches: [String])
    case templateNotFound(String)
    case noTemplates(cache: String)

    public var failureClass: FailureClass {
        switch self {
        case .unsafeName: return .badData
        case .io, .busy, .exists: return .refused
        case .unreadableForm: return .badData
        case .formNotFound, .templateNotFound, .noTemplates: return .notFound
        case .ambiguousForm: return .usage
        }
    }

    public var code: String {
        switch self {
        case .unsafeName: return "unsafe-name"
        case .io: return "io"
        case .busy: return "store-busy"
        case .exists: return "exists"
        case .unreadableForm: return "unreadable-form"
        case .formNotFound: return "form-not-found"
        case .ambiguousForm: return "ambiguous-form"
        case .templateNotFound: return "template-not-found"
        case .noTemplates: return "no-templates"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unsafeName(let kind, let name, let reason):
            return "\"\(SafeName.printable(name))\" is not a valid \(kind): \(reason) — use letters, digits, spaces, \"-\", \"_\" or \".\" inside the name"
        case .io(let operation, let path, let reason):
            return "could not \(operation) \(path): \(reason) — check the folder's permissions and free space; nothing was changed"
        case .busy(let path, let seconds):
            return "the store \(path) is busy: another mi has held its lock for \(seconds) s — wait for it to finish and try again"
        case .exists(let path):
            return "\(path) already exists — nothing was overwritten; choose another name"
        case .unreadableForm(let path, let reason):
            return "form file \(path) cannot be read (\(reason)) — it was left untouched; restore it from a backup or remove it by hand"
        case .formNotFound(let form, let user, let suggestions):
            let list = "`mi list` shows the forms and their ids"
            guard let guess = Suggestions.didYouMean(suggestions) else { return "no form \"\(SafeName.printable(form))\" for \(user) — \(list)" }
            return "no form \"\(SafeName.printable(form))\" for \(user) — \(guess) (\(list))"
        case .ambiguousForm(let form, let matches):
            let shown = matches.prefix(10).map { ShellWord.quoted($0) }.joined(separator: ", ")
            let more = matches.count > 10 ? " and \(matches.count - 10) more" : ""
            return "\"\(SafeName.printable(form))\" matches \(matches.count) forms: \(shown)\(more) — type more of the name or id, or the full name"
        case .templateNotFound(let id):
            return "no template \"\(SafeName.printable(id))\" in the template cache — `mi templates` lists the templates you have"
        case .noTemplates(let cache):
            return "the template cache \(cache) is empty — download the templates with `mi templates` when online, or import them with `mi templates import FILE…`"
        }
    }
}
