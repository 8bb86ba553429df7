import Foundation

/// The dialogue of `mi fill`: prompts on stdout, one answer a line from stdin. On a terminal the
/// line is edited with libedit and an invalid answer is asked again; piped, lines are read as
/// they come and echoed, and the caller stops at the first invalid one.
final class Prompter {
    /// Whether a person types the answers (stdin is a terminal).
    let interactive: Bool
    /// libedit, when both stdin and stdout are a terminal.
    private let editor: LineEditor?

    init() {
        Interrupts.catchInterrupts()
        interactive = Terminal.stdinIsTerminal
        editor = interactive && Terminal.stdoutIsTerminal ? LineEditor() : nil
    }

    /// Whether Ctrl-C interrupted the dialogue; every later `ask` returns nil at once.
    var interrupted: Bool { Interrupts.happened }

    /// Shows `prompt` and returns the next line, or nil at the end of input or after Ctrl-C.
    /// Tab completes `completing` (option labels) on a terminal.
    func ask(_ prompt: String, completing labels: [String] = [], paths: Bool = false) -> String? {
        guard !interrupted else { return nil }
        if let editor {
            let line = editor.readLine(prompt: prompt, completing: labels, paths: paths)
            if line == nil { say("") }
            return line
        }
        FileHandle.standardOutput.write(Data(prompt.utf8))
        guard let line = readLine(strippingNewline: true) else {
            say("")
            return nil
        }
        if !interactive { say(line) }
        return line
    }

    func say(_ text: String = "") { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
}

/// What a line typed at a question means.
enum FillInput: Equatable {
    case back
    case saveAndExit
    case help
    /// `:img`: open the question's picture.
    case image
    /// `:scan PATH`: read the answer from the barcode in a photo, and keep the photo.
    case scan(String)
    case comment(String)
    /// `:clear`: withdraw the question's answer.
    case clear
    case next
    case answer(String)

    init(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let lowered = trimmed.lowercased()
        switch lowered {
        case ":b", ":back": self = .back
        case ":x", ":exit", ":save", ":q", ":quit": self = .saveAndExit
        case "?", ":?", ":h", ":help": self = .help
        case ":img", ":image", ":imagen": self = .image
        case ":clear": self = .clear
        case "": self = .next
        default:
            if lowered == ":scan" || lowered.hasPrefix(":scan ") {
                self = .scan(Self.path(String(trimmed.dropFirst(5))))
                return
            }
            for prefix in [":comment", ":c"] where lowered == prefix || lowered.hasPrefix(prefix + " ") {
                self = .comment(String(trimmed.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces))
                return
            }
            self = .answer(trimmed)
        }
    }

    /// A typed path: trimmed, without the quotes a terminal adds to a dropped file, `~/` the
    /// home folder.
    static func path(_ text: String) -> String {
        var path = text.trimmingCharacters(in: .whitespaces)
        if path.count >= 2, let first = path.first, first == path.last, first == "'" || first == "\"" {
            path = String(path.dropFirst().dropLast())
        }
        if path.hasPrefix("~/") { path = NSHomeDirectory() + path.dropFirst(1) }
        return path
    }

    static let legend = "Enter = next (keeps the current answer) · :b back without saving · :x save and exit · ? help · :c TEXT comment · :clear withdraws the answer"
}
