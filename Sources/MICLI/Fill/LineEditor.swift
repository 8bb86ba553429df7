import CEdit
import CMISystem
import Foundation

/// Line editing for `mi fill` on a terminal, with Debian's libedit: arrow keys, Home/End,
/// Ctrl-A/E/U/W, the history of earlier answers (↑/↓) and Tab completing option labels. Owns
/// its `EditLine` and `History` handles; callbacks find it through `EL_CLIENTDATA`.
final class LineEditor {
    private let editor: OpaquePointer
    private let history: OpaquePointer
    /// The prompt libedit shows, as a C string this object owns until the next one.
    private var prompt: UnsafeMutablePointer<CChar>?
    /// What Tab completes at the current prompt: the question's option labels.
    private var completions: [String] = []
    /// Whether Tab completes a file's path instead (a photo question asks for its file).
    private var completingPaths = false

    /// Key bindings on top of libedit's emacs map, for the sequences terminals send whatever
    /// their terminfo entry says, and readline's meaning of Ctrl-U and Ctrl-W.
    private static let bindings: [(keys: String, function: String)] = [
        ("\\e[D", "ed-prev-char"), ("\\eOD", "ed-prev-char"),
        ("\\e[C", "ed-next-char"), ("\\eOC", "ed-next-char"),
        ("\\e[A", "ed-prev-history"), ("\\eOA", "ed-prev-history"),
        ("\\e[B", "ed-next-history"), ("\\eOB", "ed-next-history"),
        ("\\e[H", "ed-move-to-beg"), ("\\eOH", "ed-move-to-beg"), ("\\e[1~", "ed-move-to-beg"), ("\\e[7~", "ed-move-to-beg"),
        ("\\e[F", "ed-move-to-end"), ("\\eOF", "ed-move-to-end"), ("\\e[4~", "ed-move-to-end"), ("\\e[8~", "ed-move-to-end"),
        ("\\e[3~", "ed-delete-next-char"),
        ("^A", "ed-move-to-beg"), ("^E", "ed-move-to-end"),
        ("^U", "vi-kill-line-prev"), ("^W", "ed-delete-prev-word"),
        ("^I", "mi-complete"),
    ]

    /// Nil when libedit cannot start on this terminal; the caller then reads plain lines.
    init?() {
        _ = mi_edit_use_utf8_ctype()
        guard let editor = mi_el_init(CommandLine.arguments.first ?? "mi") else { return nil }
        guard let history = history_init() else {
            el_end(editor)
            return nil
        }
        self.editor = editor
        self.history = history
        _ = mi_history_set_size(history, 200)
        _ = mi_history_set_unique(history, 1)
        _ = mi_el_set_editor(editor, "emacs")
        _ = mi_el_set_history(editor, history)
        _ = mi_el_set_clientdata(editor, Unmanaged.passUnretained(self).toOpaque())
        _ = mi_el_set_prompt(editor, { editor in
            guard let editor, let data = mi_el_clientdata(editor) else { return nil }
            return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().prompt
        })
        _ = mi_el_add_function(editor, "mi-complete", "Complete an option label", { editor, _ in
            guard let editor, let data = mi_el_clientdata(editor) else { return mi_el_error() }
            return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().complete()
        })
        for binding in Self.bindings { _ = mi_el_bind(editor, binding.keys, binding.function) }
    }

    deinit {
        el_end(editor)
        history_end(history)
        free(prompt)
    }

    /// Shows `prompt`, lets the person edit a line, and returns it without its newline; nil at
    /// the end of input (Ctrl-D on an empty line) or when Ctrl-C interrupted the reading.
    func readLine(prompt text: String, completing labels: [String], paths: Bool = false) -> String? {
        free(prompt)
        prompt = strdup(text)
        completions = labels
        completingPaths = paths
        var count: Int32 = 0
        guard let line = el_gets(editor, &count), count > 0 else { return nil }
        var result = String(cString: line)
        while result.hasSuffix("\n") || result.hasSuffix("\r") { result.removeLast() }
        if !result.trimmingCharacters(in: .whitespaces).isEmpty { _ = mi_history_enter(history, result) }
        return result
    }

    /// Tab: completes the option label being typed after the last comma; when several labels
    /// match, completes their common start, or lists them.
    private func complete() -> UInt8 {
        guard let info = el_line(editor)?.pointee else { return mi_el_error() }
        let typed = info.buffer.withMemoryRebound(to: UInt8.self, capacity: info.cursor - info.buffer) {
            String(decoding: UnsafeBufferPointer(start: $0, count: info.cursor - info.buffer), as: UTF8.self)
        }
        let word: Substring
        let matches: [String]
        let folded: (String) -> String
        if completingPaths {
            word = typed.drop { $0 == " " }
            matches = Self.paths(startingWith: String(word))
            folded = { $0 }
        } else {
            word = String(typed.split(separator: ",", omittingEmptySubsequences: false).last ?? "").drop { $0 == " " }
            matches = completions.filter { $0.lowercased().hasPrefix(word.lowercased()) }
            folded = { $0.lowercased() }
        }
        guard let first = matches.first else { return mi_el_error() }
        var common = first
        for match in matches.dropFirst() {
            while !folded(match).hasPrefix(folded(common)) { common.removeLast() }
        }
        if common.count > word.count || (matches.count == 1 && common != word) {
            el_deletestr(editor, Int32(word.unicodeScalars.count))
            _ = el_insertstr(editor, common)
            return mi_el_refresh()
        }
        guard matches.count > 1 else { return mi_el_error() }
        let shown = completingPaths ? matches.map { ($0 as NSString).lastPathComponent + ($0.hasSuffix("/") ? "/" : "") } : matches
        FileHandle.standardOutput.write(Data(("\n" + shown.joined(separator: "   ") + "\n").utf8))
        return mi_el_redisplay()
    }

    /// The paths that complete `typed`: the entries of its folder whose names start with its
    /// last part (hidden ones only when that part starts with a dot), folders ending in `/`.
    /// `~/` stands for the home folder as typed.
    static func paths(startingWith typed: String) -> [String] {
        let slash = typed.lastIndex(of: "/")
        let folderPart = slash.map { String(typed[...$0]) } ?? ""
        let namePart = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        var folder = folderPart.isEmpty ? "." : folderPart
        if folder.hasPrefix("~/") { folder = NSHomeDirectory() + folder.dropFirst(1) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasPrefix(namePart) && (namePart.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map { name in
            var isFolder: ObjCBool = false
            let full = (folder as NSString).appendingPathComponent(name)
            let folderMark = FileManager.default.fileExists(atPath: full, isDirectory: &isFolder) && isFolder.boolValue ? "/" : ""
            return folderPart + name + folderMark
        }
    }
}

/// Ctrl-C during `mi fill`: SIGINT only sets a flag and interrupts the read that waits for the
/// next line, so fill can save what was typed and end with a message instead of dying mid-step.
/// The flag is CMISystem's, one per process (see `mi_catch_interrupts`).
enum Interrupts {
    /// Installs the handler; call once, before the first prompt.
    static func catchInterrupts() { _ = mi_catch_interrupts() }

    /// Whether Ctrl-C (SIGINT) came since the handler was installed.
    static var happened: Bool { mi_was_interrupted() != 0 }
}
