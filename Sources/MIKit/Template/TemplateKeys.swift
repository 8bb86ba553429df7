import Foundation

/// The JSON key names (and question type names) templates use. The defaults are the seed
/// app's (`Max-answers`, `noCells`); every one can be renamed from `TemplateKeys` in Config.plist.
///
/// The keys of the template object and the keys every question has are listed here; each
/// question type declares its own keys and its type name in its file under `Types/`
/// (`QuestionType.keys`, `QuestionType.typeKey`), and `QuestionTypes.all` gathers them.
public struct TemplateKeys: Sendable, Equatable {
    /// A logical key: its name in Config.plist's `TemplateKeys` (`rawValue`) and its default
    /// JSON name.
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public let defaultName: String

        public init(_ rawValue: String, defaultName: String? = nil) {
            self.rawValue = rawValue
            self.defaultName = defaultName ?? rawValue
        }

        /// The key of that Config.plist name, when there is one.
        public init?(rawValue: String) {
            guard let key = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = key
        }

        public static func == (lhs: Key, rhs: Key) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
        public var description: String { rawValue }

        // template object
        public static let id = Key("id"), title = Key("title"), version = Key("version"), questions = Key("questions")
        public static let scoring = Key("scoring"), oncePerUser = Key("oncePerUser"), consent = Key("consent")
        public static let captureLocation = Key("captureLocation")
        // every question object
        public static let type = Key("type"), text = Key("text"), help = Key("help"), image = Key("image")

        static let templateScope: [Key] = [.id, .title, .version, .questions, .scoring, .oncePerUser, .consent, .captureLocation, .defaultLanguage]
        /// The keys every question has, then each type's own keys (each once).
        static var questionScope: [Key] {
            var keys: [Key] = [.id, .type, .text, .help, .image]
            for type in QuestionTypes.all {
                for key in type.keys where !keys.contains(key) { keys.append(key) }
            }
            // Form logic's keys last, so the list keeps the order it had before them.
            return keys + QuestionLogic.keys.filter { !keys.contains($0) }
        }
        /// The keys of objects inside questions' settings, each type's its own scope.
        static var nestedScopes: [[Key]] { QuestionTypes.all.map { $0.nestedKeys }.filter { !$0.isEmpty } }
        /// The values of `type`, in the registry's order.
        static var typeNames: [Key] { QuestionTypes.all.map { $0.typeKey } + [.group, .repeat] }

        /// Every logical key: the template's, the questions', then the type names.
        public static var allCases: [Key] {
            var keys = templateScope + questionScope.filter { $0 != .id } + [.repeatCount]
            for key in nestedScopes.joined() where !keys.contains(key) { keys.append(key) }
            return keys + typeNames
        }
    }

    /// The keys renamed (Config.plist's `TemplateKeys`); the others take their default JSON
    /// name, or their logical name when `unnamedAreLogical`.
    private var names: [Key: String]
    private var unnamedAreLogical = false

    public static let `default` = TemplateKeys(names: [:])

    /// The logical names themselves (`maxAnswers`, not `Max-answers`): how `--json` names a
    /// question's settings.
    public static let logical: TemplateKeys = {
        var keys = TemplateKeys(names: [:])
        keys.unnamedAreLogical = true
        return keys
    }()

    public init(names: [Key: String]) { self.names = names }

    /// A key's JSON name. Templates are read by looking names up for every field of every
    /// question, so the usual case — nothing renamed — costs no hashing.
    public subscript(key: Key) -> String {
        if !names.isEmpty, let name = names[key] { return name }
        return unnamedAreLogical ? key.rawValue : key.defaultName
    }

    /// Two key sets are equal when they give every key the same name, however they were made.
    public static func == (lhs: TemplateKeys, rhs: TemplateKeys) -> Bool {
        Key.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    /// Pairs of logical keys that would read the same JSON key in one object.
    func conflicts() -> [(Key, Key, String)] {
        var result: [(Key, Key, String)] = []
        for scope in [Key.templateScope, Key.questionScope, Key.groupScope, Key.typeNames] + Key.nestedScopes {
            var seen: [String: Key] = [:]
            for key in scope {
                let name = self[key]
                if let other = seen[name] { result.append((other, key, name)) } else { seen[name] = key }
            }
        }
        return result
    }
}
