import Foundation
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// Where the CLI writes: results on stdout, notes and errors on stderr.
enum Terminal {
    /// A result on stdout; on a terminal long lines break between words. Piped, lines are
    /// never broken (whatever `COLUMNS` says), so `grep` and scripts see them whole.
    static func out(_ text: String = "") { print(stdoutIsTerminal ? TextWrap.fitting(text, width: width) : text) }

    /// A table on stdout, fitted to the terminal by `TableRenderer` (one line per row when piped).
    static func out(_ table: TableRenderer) { print(table.render()) }

    /// The width tables fit on stdout: the terminal's, or nil when stdout is no terminal.
    static var tableWidth: Int? { stdoutIsTerminal ? width : nil }

    /// `COLUMNS`, read once: the environment does not change while mi runs.
    private static let columnsVariable: Int? = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init)

    /// A note for the person at the terminal (never part of `--json` output). Notes, warnings
    /// and errors quote what others wrote (a template's texts, a server's message), so their
    /// control characters are shown escaped (`DisplayText`), never obeyed.
    static func note(_ text: String) { toStandardError("mi: ", text) }

    /// A warning: like a note, in yellow on a colour terminal.
    static func warning(_ text: String) { toStandardError("mi: ", text, label: "warning:", colour: .warning) }

    /// The message of a failed command, in red on a colour terminal.
    static func error(_ text: String) { toStandardError("mi: ", text, label: "error:", colour: .error) }

    /// `prefix`, the coloured `label` and `text` (escaped) as one message on stderr; on a terminal
    /// broken between words to its width (a terminal left to itself breaks inside them: "try
    /// agai" / "n").
    private static func toStandardError(_ prefix: String, _ text: String, label: String? = nil, colour: Colour? = nil) {
        let head = prefix + (label.map { $0 + " " } ?? "")
        var message = head + DisplayText.escaped(text, keepingNewlines: true)
        if isatty(STDERR_FILENO) == 1 { message = TextWrap.fitting(message, width: width(of: STDERR_FILENO)) }
        if let label, let colour {
            message = prefix + colour.paint(label) + message.dropFirst(prefix.count + label.count)
        }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// A failed command's error as one JSON document on stderr, for scripts.
    static func errorJSON(_ failure: FailureReport.Described) {
        struct Document: Encodable { var error: ErrorJSON }
        let document = Document(error: ErrorJSON(failure))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data(#"{"error":{"code":"internal","message":"cannot encode the error"}}"#.utf8)
        FileHandle.standardError.write(data + Data("\n".utf8))
    }

    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Columns of the terminal on stdout (or `COLUMNS`), 100 when unknown.
    static var width: Int { width(of: STDOUT_FILENO) }

    /// Columns of the terminal on `descriptor` (TIOCGWINSZ), else `COLUMNS`, else 100.
    static func width(of descriptor: Int32) -> Int {
        var size = winsize()
        if isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        if let columns = columnsVariable, columns > 20 { return columns }
        return 100
    }

    /// Prints one JSON document on stdout.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        FileHandle.standardOutput.write(Data((jsonEscapingC1(try encoder.encode(value)) + "\n").utf8))
    }

    /// `json` for long listings: the same text, written by `ListingJSON` when it can.
    static func jsonListing<T: Encodable>(_ value: T) throws {
        guard let bytes = try? ListingJSON.encode(value) else { return try json(value) }
        FileHandle.standardOutput.write(Data((jsonEscapingC1(Data(bytes)) + "\n").utf8))
    }

    /// JSON text with DEL and the C1 controls (U+0080–U+009F) written as `\u00XX`: JSONEncoder
    /// escapes only C0, and a raw U+009B is a CSI to some terminals. They can only stand inside
    /// strings, where the escape means the same character.
    static func jsonEscapingC1(_ data: Data) -> String {
        // In UTF-8 these are 0x7F, or 0xC2 followed by 0x80–0x9F: most documents have none.
        let needed = data.withUnsafeBytes { bytes in
            bytes.indices.contains { bytes[$0] == 0x7F || (bytes[$0] == 0xC2 && $0 + 1 < bytes.count && (0x80...0x9F).contains(bytes[$0 + 1])) }
        }
        guard needed else { return String(decoding: data, as: UTF8.self) }
        var text = ""
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) {
                text += String(format: "\\u%04x", scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

/// ANSI colours for stderr: only when stderr is a terminal and `NO_COLOR` is not set
/// (https://no-color.org), never when piped.
enum Colour: String {
    case error = "31;1"
    case warning = "33"

    static let enabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["NO_COLOR"].map({ $0.isEmpty }) ?? true else { return false }
        return isatty(STDERR_FILENO) == 1 && environment["TERM"] != "dumb"
    }()

    func paint(_ text: String) -> String {
        Self.enabled ? "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" : text
    }
}

enum Format {
    static func date(_ date: Date?) -> String {
        guard let date else { return "—" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func bytes(_ count: Int64?) -> String {
        count.map(ByteCount.string) ?? "missing"
    }

    static func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }

    /// "3 hours ago", "2 days ago".
    static func age(since date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "just now"
        case ..<3_600: return plural(seconds / 60, "minute") + " ago"
        case ..<86_400: return plural(seconds / 3_600, "hour") + " ago"
        default: return plural(seconds / 86_400, "day") + " ago"
        }
    }
}
