import Foundation
import XCTest

/// Every `mi …` command mi suggests runs as shown when pasted into a shell, whatever the form's
/// name holds: each hint is taken from the real output and run with `bash -c`.
final class PastableHintTests: XCTestCase {
    /// Names that a shell would split, expand or choke on when written bare.
    static let awkwardNames = [
        "Pump P-101 north",
        "O'Brien's \"best\" pump",
        "cost $HOME `id` $(id) & more; *",
        "naïve — ümlaut #1",
    ]

    /// The command after `marker` up to the end of its line, or inside the backquotes that follow
    /// it (the closing one is the first outside single quotes: a name may hold a backquote).
    private func hint(after marker: String, in text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let start = try XCTUnwrap(text.range(of: marker), "no \(marker) in:\n\(text)", file: file, line: line).upperBound
        let rest = text[start...].drop { $0 == " " }
        guard rest.first == "`" else { return String(rest.prefix { $0 != "\n" }) }
        var command = "", quoted = false
        for character in rest.dropFirst() {
            if character == "`" && !quoted { return command }
            if character == "'" { quoted.toggle() }
            command.append(character)
        }
        XCTFail("no closing backquote after \(marker) in:\n\(text)", file: file, line: line)
        return command
    }

    /// Runs `hint` with bash, the built mi first on the PATH, as ana.
    private func paste(_ hint: String, _ sandbox: Sandbox, stdin: String = "") throws -> RunResult {
        XCTAssertTrue(hint.hasPrefix("mi "), hint)
        var environment = sandbox.environment(for: "ana")
        environment["PATH"] = Sandbox.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try Sandbox.execute(URL(fileURLWithPath: "/bin/bash"), ["-c", hint], stdin: stdin,
                                   environment: environment, in: sandbox.root)
    }

    func testEveryHintOfTheFormsLifeRunsAsShownForAwkwardNames() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        for name in Self.awkwardNames {
            let started = try sandbox.run(["new", "extinguisher-check", "--name", name])
            XCTAssertEqual(started.status, 0, started.output)
            let fill = try hint(after: "Fill it with:", in: started.stdout)
            XCTAssertNotEqual(fill, "mi fill \(name)", "the name is quoted")

            // Fill it with: … → the first answer, then :x.
            let first = try paste(fill, sandbox, stdin: "Hall B\n:x\n")
            XCTAssertEqual(first.status, 0, "\(fill): \(first.output)")
            XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 1, first.output)
            let continueWith = try hint(after: "Continue with:", in: first.stdout)

            // `mi media` says how to attach; its command, with a question and a file, attaches.
            let media = try sandbox.run(["media", name])
            XCTAssertEqual(media.status, 0, media.output)
            let attach = try hint(after: "Attach with", in: media.stdout)
            let photo = sandbox.root.appendingPathComponent("gauge.jpg")
            try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: photo)
            let attached = try paste(attach.replacingOccurrences(of: "QUESTION FILE…", with: "location " + photo.path), sandbox)
            XCTAssertEqual(attached.status, 0, "\(attach): \(attached.output)")
            XCTAssertEqual((try sandbox.formJSON(name)["answers"] as? [String: [String: Any]])?["location"]?["media"] as? [String],
                           ["Qid0(1).jpg"], attached.output)

            // The refused submit names the command that finishes the form.
            let refused = try sandbox.run(["submit", name])
            XCTAssertEqual(refused.status, 65, refused.output)
            let answerThem = try hint(after: "answer them with", in: refused.stderr)
            XCTAssertEqual(answerThem, continueWith)
            let second = try paste(answerThem, sandbox, stdin: "yes\n1\n6.5\n")
            XCTAssertEqual(second.status, 0, "\(answerThem): \(second.output)")
            let submit = try hint(after: "submit with:", in: second.stdout)

            let submitted = try paste(submit, sandbox)
            XCTAssertEqual(submitted.status, 0, "\(submit): \(submitted.output)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").appendingPathComponent("form.json").path),
                          "\(submit) submitted \(name): \(submitted.output)")
        }
    }

    func testTheDraftTableHintRunsAsShown() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = Self.awkwardNames[1]
        XCTAssertEqual(try sandbox.run(["new", "pump-inspection", "--name", name]).status, 0)
        let partly = try sandbox.run(["fill", name], stdin: "yes\n1\n1\n1,2\n5\n100\n61\n:x\n")
        XCTAssertEqual(partly.status, 0, partly.output)
        let goOn = try hint(after: "cells typed);", in: partly.stdout)
            .replacingOccurrences(of: " goes on from there.", with: "")
        let resumed = try paste(goOn, sandbox, stdin: "2.0\n58\n1.9\n65\n:x\n")
        XCTAssertEqual(resumed.status, 0, "\(goOn): \(resumed.output)")
        XCTAssertTrue(resumed.stdout.contains("Typed so far (a draft, 1 of 5 cells)"), resumed.stdout)
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 8, "7 answered, and the leak photo, not asked without a leak: \(resumed.output)")
    }

    func testAHintOnANarrowTerminalStaysOnOneLine() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = "Pump P-101 north by the east gate"
        let started = try sandbox.runOnTerminal(["new", "extinguisher-check", "--name", name], columns: 30)
        XCTAssertEqual(started.status, 0, started.lines.joined(separator: "\n"))
        let line = try XCTUnwrap(started.lines.first { $0.hasPrefix("mi fill ") }, started.lines.joined(separator: "\n"))
        let filled = try paste(line, sandbox, stdin: "Hall B\n:x\n")
        XCTAssertEqual(filled.status, 0, "\(line): \(filled.output)")
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 1, filled.output)
    }

    func testANameStartingWithADashIsRefusedBeforeAnyHint() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let refused = try sandbox.run(["new", "extinguisher-check", "--name=-rf pump"])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("it starts with \"-\""), refused.stderr)
        XCTAssertFalse(refused.output.contains("Fill it with"), refused.output)
        XCTAssertEqual(sandbox.allFormFiles(), [])
    }
}
