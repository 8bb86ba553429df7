import ArgumentParser
import Foundation
import MIKit

/// What the shell offers for arguments that name forms and templates (the generated bash, zsh
/// and fish scripts run `mi` itself to ask): read offline from the store and the template cache
/// of the configuration and session the command would use, without the lock, the sweep or
/// the network. When `mi` cannot tell (no configuration, not logged in), nothing is offered.
enum Completions {
    /// The forms the logged-in user may name: a technician's own names, a foreman's
    /// `user/name` of every technician.
    static let forms = CompletionKind.custom { words, _, prefix in formReferences(words: words, areas: Store.Area.allCases, prefix: prefix) }
    /// Forms waiting for the foreman's review (`user/name`).
    static let completedForms = CompletionKind.custom { words, _, prefix in formReferences(words: words, areas: [.completed], prefix: prefix) }
    /// Incomplete forms.
    static let incompleteForms = CompletionKind.custom { words, _, prefix in formReferences(words: words, areas: [.incomplete], prefix: prefix) }
    /// The answers of the form named by the word before (an incomplete form of the user's):
    /// question ids, and inside repeats paths (`pumps[2]/amps`), in the order asked.
    static let questions = CompletionKind.custom { words, index, prefix in
        let form = index > 0 && index - 1 < words.count ? words[index - 1] : ""
        return questionPaths(words: words, form: form, prefix: prefix)
    }
    /// Template ids in the template cache.
    static let templates = CompletionKind.custom { words, _, prefix in templateIDs(words: words, prefix: prefix) }

    /// The configuration named by `--config` on the line being completed, or found as every
    /// command finds it.
    static func configuration(words: [String]) -> Configuration? {
        var explicit: String?
        if let index = words.firstIndex(of: "--config"), index + 1 < words.count {
            explicit = unquoted(words[index + 1])
        } else if let word = words.first(where: { $0.hasPrefix("--config=") }) {
            explicit = unquoted(String(word.dropFirst("--config=".count)))
        }
        guard let url = try? ConfigurationLoader.locate(
            explicitPath: explicit, environment: ProcessInfo.processInfo.environment,
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) else { return nil }
        return try? ConfigurationLoader.load(from: url)
    }

    static func formReferences(words: [String], areas: [Store.Area], prefix: String) -> [String] {
        guard let configuration = configuration(words: words),
              let session = try? Identity.current(configuration: configuration) else { return [] }
        let store = Store(root: configuration.documents)
        let foreman = session.role == .foreman
        var names: [String] = []
        for area in areas {
            guard let listing = try? store.list(area, user: foreman ? nil : session.user) else { continue }
            names += listing.forms.map { foreman ? "\($0.location.user)/\($0.location.name)" : $0.location.name }
        }
        return matching(names, prefix: prefix)
    }

    static func questionPaths(words: [String], form reference: String, prefix: String) -> [String] {
        let name = unquoted(reference)
        guard !name.isEmpty, !name.hasPrefix("-"), let configuration = configuration(words: words),
              let session = try? Identity.current(configuration: configuration) else { return [] }
        let store = Store(root: configuration.documents)
        guard let listing = try? store.list(.incomplete, user: session.user),
              let found = listing.forms.first(where: { $0.location.name == name }),
              let form = try? store.load(found.location) else { return [] }
        let typed = unquoted(prefix)
        return form.slots.filter { $0.question.type.takesAnswer && $0.question.logic.isAnsweredByHand }.map(\.key).filter { $0.hasPrefix(typed) }
    }

    static func templateIDs(words: [String], prefix: String) -> [String] {
        guard let configuration = configuration(words: words) else { return [] }
        let cache = TemplateCache(store: Store(root: configuration.documents), keys: configuration.templateKeys)
        return matching(cache.all().templates.map(\.template.id), prefix: prefix)
    }

    /// Sorted, without repeats, those starting with what was typed (as the shell passed it,
    /// possibly with an opening quote).
    static func matching(_ candidates: [String], prefix: String) -> [String] {
        let typed = unquoted(prefix)
        return Array(Set(candidates.filter { $0.hasPrefix(typed) })).sorted()
    }

    /// A shell word as typed, without its quotes or backslashes (a name with spaces).
    static func unquoted(_ word: String) -> String {
        var result = ""
        var escaped = false
        for character in word {
            if escaped { result.append(character); escaped = false; continue }
            switch character {
            case "\\": escaped = true
            case "\"", "'": continue
            default: result.append(character)
            }
        }
        return result
    }
}
