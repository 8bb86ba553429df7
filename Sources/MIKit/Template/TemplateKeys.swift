import Foundation

/// The JSON key names (and question type names) templates use. The defaults are the seed
/// app's (`Max-answers`, `noCells`); every one can be renamed from `TemplateKeys` in Config.plist.
public struct TemplateKeys: Sendable, Equatable {
    public enum Key: String, CaseIterable, Sendable {
        // template object
        case id, title, version, questions, scoring, oncePerUser, consent
        // question object
        case type, text, help, image, options, maxAnswers, integer, min, max, rows, columns, noCells
        // values of `type`
        case multipleChoice, trueFalse, shortAnswer, numeric, table

        public var defaultName: String {
            switch self {
            case .maxAnswers: return "Max-answers"
            default: return rawValue
            }
        }

        static let templateScope: [Key] = [.id, .title, .version, .questions, .scoring, .oncePerUser, .consent]
        static let questionScope: [Key] = [.id, .type, .text, .help, .image, .options, .maxAnswers, .integer,
                                           .min, .max, .rows, .columns, .noCells]
        static let typeNames: [Key] = [.multipleChoice, .trueFalse, .shortAnswer, .numeric, .table]
    }

    private var names: [Key: String]

    public static let `default` = TemplateKeys(names: [:])

    public init(names: [Key: String]) { self.names = names }

    public subscript(key: Key) -> String { names[key] ?? key.defaultName }

    /// Pairs of logical keys that would read the same JSON key in one object.
    func conflicts() -> [(Key, Key, String)] {
        var result: [(Key, Key, String)] = []
        for scope in [Key.templateScope, Key.questionScope, Key.typeNames] {
            var seen: [String: Key] = [:]
            for key in scope {
                let name = self[key]
                if let other = seen[name] { result.append((other, key, name)) } else { seen[name] = key }
            }
        }
        return result
    }
}
