import Foundation

/// Runs a command-line tool the tests use (openssl, poppler, the service scripts) and returns its
/// standard output; a non-zero exit throws with what it wrote to standard error.
public enum ToolRun {
    public struct Failure: Error, CustomStringConvertible {
        public let command: [String]
        public let status: Int32
        public let message: String
        public var description: String { "\(command.joined(separator: " ")) exited with \(status): \(message)" }
    }

    /// `environment` is added to the test process's own; `stdin`, when given, is written and closed.
    public static func output(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                              stdin: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let input = stdin.map { _ in Pipe() }
        if let input { process.standardInput = input }
        try process.run()
        if let input, let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(command: [executable.path] + arguments, status: process.terminationStatus,
                          message: String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
