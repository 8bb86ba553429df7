import Foundation
import XCTest

/// The completion scripts `mi --generate-completion-script` writes, run in a real bash: a form
/// argument offers the user's forms (a foreman's as user/name), a template argument the cached
/// templates, a file argument the files — not the command's flags.
final class CompletionTests: XCTestCase {
    /// What bash offers for `words` (the last one being typed) with mi's generated script.
    private func complete(_ sandbox: Sandbox, _ words: [String], as user: String? = "ana",
                          in folder: URL? = nil) throws -> [String] {
        if let user { try sandbox.ensureLoggedIn(user) }
        let script = sandbox.root.appendingPathComponent("mi-completion.bash")
        if !FileManager.default.fileExists(atPath: script.path) {
            let generated = try sandbox.run(["--generate-completion-script", "bash"], as: nil)
            XCTAssertEqual(generated.status, 0, generated.output)
            try Data(generated.stdout.utf8).write(to: script)
        }
        let quoted = ([Sandbox.binary.path] + words).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        let line = """
            source '\(script.path)'
            COMP_WORDS=(\(quoted.joined(separator: " ")))
            COMP_CWORD=\(words.count)
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            _mi "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Sandbox.execute(URL(fileURLWithPath: "/bin/bash"), ["--norc", "-c", line],
                                         environment: sandbox.environment(for: user), in: folder ?? sandbox.root)
        XCTAssertEqual(result.status, 0, result.output)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testFormsTemplatesAndFilesAreCompleted() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        _ = try sandbox.newForm("extinguisher-check", name: "hall-b")
        _ = try sandbox.newForm("pump-inspection", name: "pump-7")
        _ = try sandbox.newForm("pump-inspection", as: "bob", name: "bobs-pump")

        // Form arguments: the technician's own forms, filtered by what was typed.
        XCTAssertEqual(Set(try complete(sandbox, ["review", ""])), ["hall-b", "pump-7"])
        XCTAssertEqual(try complete(sandbox, ["fill", "pu"]), ["pump-7"])
        XCTAssertEqual(try complete(sandbox, ["answer", "ha"]), ["hall-b"])
        // A foreman's: everyone's, as user/name.
        XCTAssertEqual(Set(try complete(sandbox, ["assign", ""], as: "fiona")), ["ana/hall-b", "ana/pump-7", "bob/bobs-pump"])

        // Template arguments: the cached templates.
        let templates = try complete(sandbox, ["new", ""])
        XCTAssertTrue(templates.contains("pump-inspection") && templates.contains("extinguisher-check"), "\(templates)")
        XCTAssertEqual(try complete(sandbox, ["stats", "ext"]), ["extinguisher-check"])

        // File arguments: files, not flags.
        let folder = sandbox.root.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: folder.appendingPathComponent("answers.json"))
        try Data([0xFF, 0xD8]).write(to: folder.appendingPathComponent("gauge.jpg"))
        let answersFile = try complete(sandbox, ["answer", "hall-b", "--file", ""], in: folder)
        XCTAssertTrue(answersFile.contains("answers.json"), "\(answersFile)")
        XCTAssertFalse(answersFile.contains { $0.hasPrefix("--") }, "a file argument offers no flags: \(answersFile)")
        let attachment = try complete(sandbox, ["attach", "hall-b", "seal", "ga"], in: folder)
        XCTAssertEqual(attachment, ["gauge.jpg"])

        // Not logged in: nothing is offered, and nothing fails.
        XCTAssertEqual(try complete(sandbox, ["review", ""], as: nil).filter { !$0.hasPrefix("-") }, [])
    }

    /// A question argument offers the form's answers by path inside repeats (`mi answer`, `mi attach`).
    func testQuestionPathsAreCompleted() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root.appendingPathComponent("station.json")
        try Data(RepeatsEndToEndTests.template.utf8).write(to: file)
        XCTAssertEqual(try sandbox.run(["templates", "import", file.path]).status, 0)
        _ = try sandbox.newForm("station", name: "st-1")
        XCTAssertEqual(try sandbox.run(["answer", "st-1", "npumps", "2"]).status, 0)
        XCTAssertEqual(try complete(sandbox, ["answer", "st-1", "pumps[2]/"]), ["pumps[2]/amps", "pumps[2]/kw"])
        XCTAssertEqual(try complete(sandbox, ["attach", "st-1", "n"]), ["npumps"])
        let all = try complete(sandbox, ["answer", "st-1", ""])
        XCTAssertEqual(all.first, "site")
        XCTAssertFalse(all.contains("total"), "a calculation takes no typed answer: \(all)")
    }

    func testEveryShellsScriptIsGenerated() throws {
        let sandbox = try Sandbox()
        for shell in ["bash", "zsh", "fish"] {
            let script = try sandbox.run(["--generate-completion-script", shell], as: nil)
            XCTAssertEqual(script.status, 0, script.output)
            XCTAssertTrue(script.stdout.contains("---completion"), "\(shell): form and template arguments ask mi itself")
        }
    }
}
