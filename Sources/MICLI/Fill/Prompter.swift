import Foundation

/// Line-based terminal dialogue that works the same typed or piped: prompts on stdout,
/// answers one line at a time from stdin.
struct Prompter {
    /// Shows `prompt` and returns the next line, or nil at the end of input.
    func ask(_ prompt: String) -> String? {
        FileHandle.standardOutput.write(Data(prompt.utf8))
        guard let line = readLine(strippingNewline: true) else {
            FileHandle.standardOutput.write(Data("\n".utf8))
            return nil
        }
        if !Terminal.stdinIsTerminal { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        return line
    }

    func say(_ text: String = "") { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
}

/// What a line typed at a question means.
enum FillInput: Equatable {
    case back
    case saveAndExit
    case help
    case comment(String)
    case next
    case answer(String)

    init(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let lowered = trimmed.lowercased()
        switch lowered {
        case ":b", ":back": self = .back
        case ":x", ":exit", ":save", ":q", ":quit": self = .saveAndExit
        case "?", ":?", ":h", ":help": self = .help
        case "": self = .next
        default:
            for prefix in [":comment", ":c"] where lowered == prefix || lowered.hasPrefix(prefix + " ") {
                self = .comment(String(trimmed.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces))
                return
            }
            self = .answer(trimmed)
        }
    }

    static let legend = "Enter = next (keeps the current answer) · :b back without saving · :x save and exit · ? help · :c TEXT comment"
}
