import Foundation

/// The `export NAME='value'` lines the test servers' scripts print (slapd-test.sh, postgres-test.sh).
public enum ShellExports {
    /// Each exported name's value, with the scripts' `'\''` quoting undone.
    public static func parse(_ output: String) -> [String: String] {
        var exports: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            var value = String(assignment[assignment.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") {
                value = String(value.dropFirst().dropLast()).replacing("'\\''", with: "'")
            }
            exports[String(assignment[..<equals])] = value
        }
        return exports
    }
}
