import Foundation

/// One thing wrong (or suspicious) in Config.plist, named by its key path.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }
    /// Dotted key path (`LDAP.URL`); empty for problems with the file itself.
    public var keyPath: String
    public var message: String
    public var severity: Severity

    public init(_ keyPath: String, _ message: String, severity: Severity = .error) {
        self.keyPath = keyPath
        self.message = message
        self.severity = severity
    }

    public var description: String { keyPath.isEmpty ? message : "\(keyPath): \(message)" }
}

/// Config.plist could not be used; carries every error found (and the warnings) at once.
public struct ConfigurationError: ClassifiedError, Sendable {
    public var url: URL?
    public var problems: [ConfigurationProblem]
    public var failureClass: FailureClass { .configuration }
    public init(url: URL?, problems: [ConfigurationProblem]) {
        self.url = url
        self.problems = problems
    }
    public var code: String { "configuration" }

    public var errorDescription: String? {
        let errors = problems.filter { $0.severity == .error }
        let place = url.map { " (\($0.path))" } ?? ""
        if errors.count == 1, let only = errors.first {
            return "Config.plist\(place): \(only) — fix it, then check with `mi config check`"
        }
        let lines = errors.map { "  \($0)" }.joined(separator: "\n")
        return "Config.plist\(place) has \(errors.count) problems — fix them, then check with `mi config check`:\n\(lines)"
    }
}

/// The result of checking a plist: the configuration when it has no errors, and every problem found.
public struct ConfigurationReport: Sendable {
    public var url: URL
    public var configuration: Configuration?
    public var problems: [ConfigurationProblem]
    public var errors: [ConfigurationProblem] { problems.filter { $0.severity == .error } }
    public var warnings: [ConfigurationProblem] { problems.filter { $0.severity == .warning } }

    /// The configuration, or every problem as one error when it has errors. With `warnings`,
    /// this reads Config.plist once for a program that reports warnings and then runs.
    public func requireConfiguration() throws(ConfigurationError) -> Configuration {
        guard let configuration else { throw ConfigurationError(url: url, problems: problems) }
        return configuration
    }
}
