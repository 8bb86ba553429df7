import Foundation

/// Reads typed values out of one plist dictionary, recording a problem with its key path for
/// every missing key, wrong type or unknown key instead of stopping at the first.
final class PlistReader {
    private let values: [String: PlistValue]
    private let prefix: String
    private var read: Set<String> = []
    private let problems: ProblemList

    init(_ values: [String: PlistValue], prefix: String = "", problems: ProblemList) {
        self.values = values
        self.prefix = prefix
        self.problems = problems
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    func error(_ key: String, _ message: String) { problems.append(ConfigurationProblem(path(key), message)) }
    func warning(_ key: String, _ message: String) {
        problems.append(ConfigurationProblem(path(key), message, severity: .warning))
    }

    private func value(_ key: String, required: Bool) -> PlistValue? {
        read.insert(key)
        guard let value = values[key] else {
            if required { error(key, "missing") }
            return nil
        }
        return value
    }

    private func mismatch(_ key: String, expected: String, found: PlistValue) {
        error(key, "expected \(expected), found \(found.kindDescription)")
    }

    func string(_ key: String, required: Bool = true) -> String? {
        guard let value = value(key, required: required) else { return nil }
        guard case .string(let string) = value else { mismatch(key, expected: "a string", found: value); return nil }
        if string.trimmingCharacters(in: .whitespaces).isEmpty {
            error(key, "empty")
            return nil
        }
        return string
    }

    func integer(_ key: String, required: Bool = true) -> Int? {
        guard let value = value(key, required: required) else { return nil }
        guard case .integer(let integer) = value else { mismatch(key, expected: "an integer", found: value); return nil }
        return integer
    }

    func bool(_ key: String, required: Bool = true) -> Bool? {
        guard let value = value(key, required: required) else { return nil }
        guard case .bool(let bool) = value else { mismatch(key, expected: "a boolean", found: value); return nil }
        return bool
    }

    func strings(_ key: String, required: Bool = true) -> [String]? {
        array(key, required: required, of: ("a string", "strings")) { element in
            if case .string(let string) = element { return string }
            return nil
        }
    }

    func integers(_ key: String, required: Bool = true) -> [Int]? {
        array(key, required: required, of: ("an integer", "integers")) { element in
            if case .integer(let integer) = element { return integer }
            return nil
        }
    }

    /// An array whose every element `convert` takes; each element it refuses is an error
    /// naming its index (`Key[2]`), and then the whole array is nil.
    private func array<Element>(_ key: String, required: Bool, of kind: (one: String, many: String),
                                _ convert: (PlistValue) -> Element?) -> [Element]? {
        guard let value = value(key, required: required) else { return nil }
        guard case .array(let array) = value else { mismatch(key, expected: "an array of \(kind.many)", found: value); return nil }
        var result: [Element] = []
        var ok = true
        for (index, element) in array.enumerated() {
            if let converted = convert(element) { result.append(converted) } else {
                error("\(key)[\(index)]", "expected \(kind.one), found \(element.kindDescription)")
                ok = false
            }
        }
        return ok ? result : nil
    }

    func dictionary(_ key: String, required: Bool = true) -> PlistReader? {
        guard let value = value(key, required: required) else { return nil }
        guard case .dictionary(let dictionary) = value else { mismatch(key, expected: "a dictionary", found: value); return nil }
        return PlistReader(dictionary, prefix: path(key), problems: problems)
    }

    /// The keys present in this dictionary, in a stable order.
    var keys: [String] { values.keys.sorted() }

    /// Warns about every key nobody asked for (most often a typo).
    func warnAboutUnknownKeys() {
        for key in values.keys.sorted() where !read.contains(key) {
            warning(key, "unknown key, ignored")
        }
    }
}

/// Problems collected while reading, shared by nested readers.
final class ProblemList {
    private(set) var all: [ConfigurationProblem] = []
    func append(_ problem: ConfigurationProblem) { all.append(problem) }
}
