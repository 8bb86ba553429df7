import Foundation
import XCTest

final class ExpiryTests: XCTestCase {
    /// Moves a form's `createdAt` back by `days`, keeping the file's layout.
    static func age(_ sandbox: Sandbox, _ name: String, user: String = "ana", days: Double) throws {
        let file = sandbox.formFolder(name, user: user).appendingPathComponent("form.json")
        var text = try String(contentsOf: file, encoding: .utf8)
        let formatter = ISO8601DateFormatter()
        let old = formatter.string(from: Date().addingTimeInterval(-days * 86_400))
        let pattern = try NSRegularExpression(pattern: #""createdAt":"[^"]+""#)
        text = pattern.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text),
                                                withTemplate: "\"createdAt\":\"\(old)\"")
        try Data(text.utf8).write(to: file)
    }

    func testEveryCommandFirstDeletesFormsPastExpiry() throws {
        let sandbox = try Sandbox(expiryDays: 7)
        try sandbox.importSamples(as: "bob")
        try sandbox.ensureLoggedIn("ana")
        let old = try sandbox.newForm("extinguisher-check", as: "bob", name: "old")
        let recent = try sandbox.newForm("extinguisher-check", as: "bob", name: "recent")
        try Self.age(sandbox, old, user: "bob", days: 8)
        try Self.age(sandbox, recent, user: "bob", days: 6)
        let photo = sandbox.root.appendingPathComponent("p.png")
        try Data([1, 2, 3]).write(to: photo)
        let oldFolder = sandbox.formFolder(old, user: "bob")
        // media inside the expired form goes with it
        try Data([1]).write(to: oldFolder.appendingPathComponent("Qid0(1).png"))

        let dry = try sandbox.run(["purge", "--dry-run", "--json"], as: "bob")
        XCTAssertEqual(dry.status, 0, dry.output)
        let would = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])?["forms"] as? [[String: Any]])
        XCTAssertEqual(would.map { $0["name"] as? String }, ["old"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: oldFolder.path), "a dry run deletes nothing")

        // Another user's command sweeps the whole store, and says so in one line.
        let other = try sandbox.run(["list"], as: "ana")
        XCTAssertEqual(other.status, 0, other.output)
        let notes = other.stderr.split(separator: "\n").filter { $0.contains("deleted") }
        XCTAssertEqual(notes, ["mi: deleted 1 incomplete form older than 7 days: Users/bob/old"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFolder.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(recent, user: "bob").path))

        try Self.age(sandbox, recent, user: "bob", days: 7.5)
        XCTAssertEqual(try sandbox.run(["purge"], as: "bob").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.documents.appendingPathComponent("Users/bob").path),
                       "a user folder left empty is removed")
    }

    func testCompletedFormsNeverExpire() throws {
        let sandbox = try Sandbox(expiryDays: 1)
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let answers = sandbox.root.appendingPathComponent("a.json")
        try Data(#"{"location": "Hall", "pressure-ok": true, "seal": ["Intact"], "weight": 6}"#.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path]).status, 0)
        try Self.age(sandbox, name, days: 0.5)
        XCTAssertEqual(try sandbox.run(["submit", name]).status, 0)
        let file = sandbox.formFolder(name, in: "CompletedMIs").appendingPathComponent("form.json")
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(of: #""createdAt":"20"#, with: #""createdAt":"19"#)
        try Data(text.utf8).write(to: file)
        XCTAssertEqual(try sandbox.run(["purge"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
    }
}

/// A `mi` killed with SIGKILL at any moment leaves every form whole and in exactly one place.
final class CrashTests: XCTestCase {
    func checkInvariants(_ sandbox: Sandbox, expectedForms: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let files = sandbox.allFormFiles()
        var ids: [String: [String]] = [:]
        for path in files {
            let data = try Data(contentsOf: sandbox.documents.appendingPathComponent(path))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let id = try XCTUnwrap(object?["id"] as? String, "\(path) does not parse", file: file, line: line)
            ids[id, default: []].append(path)
        }
        XCTAssertEqual(ids.count, expectedForms, "\(files)", file: file, line: line)
        for (id, places) in ids { XCTAssertEqual(places.count, 1, "form \(id) is in \(places)", file: file, line: line) }
        let list = try sandbox.run(["list", "--json"])
        XCTAssertEqual(list.status, 0, list.output, file: file, line: line)
        XCTAssertFalse(list.stderr.contains("skipped"), list.stderr, file: file, line: line)
    }

    /// A sandbox with the samples, a large video of `megabytes` MiB (so kills land mid-copy) and
    /// an answers file completing an extinguisher check.
    static func crashSandbox(megabytes: Int) throws -> (Sandbox, big: URL, answers: URL) {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let big = sandbox.root.appendingPathComponent("big.mp4")
        _ = FileManager.default.createFile(atPath: big.path, contents: nil)
        let handle = try FileHandle(forWritingTo: big)
        for _ in 0..<megabytes { handle.write(Data(repeating: 7, count: 1 << 20)) }
        try handle.close()
        let answers = sandbox.root.appendingPathComponent("a.json")
        try Data(#"{"location": "Hall", "pressure-ok": true, "seal": ["Intact"], "weight": 6}"#.utf8).write(to: answers)
        return (sandbox, big, answers)
    }

    func testKilledDuringAnswerAttachAndSubmit() throws {
        let (sandbox, big, answers) = try Self.crashSandbox(megabytes: 48)

        var forms = 0
        var interrupted = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let name = try sandbox.newForm("extinguisher-check", name: "f\(round)")
            forms += 1
            let steps: [[String]] = [
                ["answer", name, "--file", answers.path],
                ["attach", name, "location", big.path],
                ["submit", name],
            ]
            for step in steps {
                let process = try sandbox.start(step)
                usleep(UInt32.random(in: 2_000...60_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { interrupted += 1 }
                try checkInvariants(sandbox, expectedForms: forms)
            }
            // Whatever was cut short can be finished: the form is still usable.
            let finish = try sandbox.run(["answer", name, "--file", answers.path])
            if finish.status == 0 { XCTAssertEqual(try sandbox.run(["submit", name]).status, 0) }
            else { XCTAssertTrue(finish.stderr.contains("can no longer be changed"), finish.stderr) }
            try checkInvariants(sandbox, expectedForms: forms)
            XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name, in: "CompletedMIs").path))
        }
        XCTAssertGreaterThan(interrupted, 8, "too few runs were cut short to prove anything")
        // No temporary leftovers remain once mi has run again.
        let leftovers = FileManager.default.enumerator(atPath: sandbox.documents.appendingPathComponent("Users").path)?
            .compactMap { $0 as? String }.filter { $0.contains(".mi-tmp-") } ?? []
        XCTAssertEqual(leftovers, [])
    }

    func testKilledDuringReassignmentAndSendBack() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try sandbox.ensureLoggedIn("fiona")
        let answers = sandbox.root.appendingPathComponent("a.json")
        try Data(#"{"location": "Hall", "pressure-ok": true, "seal": ["Intact"], "weight": 6}"#.utf8).write(to: answers)
        var generator = SystemRandomNumberGenerator()
        var forms = 0
        var interrupted = 0
        for round in 0..<10 {
            let name = "r\(round)"
            _ = try sandbox.newForm("extinguisher-check", as: "bob", name: name)
            forms += 1
            for (step, user) in [(["assign", "bob/\(name)", "--to", "ana"], "fiona")] {
                let process = try sandbox.start(step, as: user)
                usleep(UInt32.random(in: 2_000...40_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { interrupted += 1 }
                try checkInvariants(sandbox, expectedForms: forms)
            }
            // Wherever it ended up, it can be finished and sent back, again under fire.
            let owner = FileManager.default.fileExists(atPath: sandbox.formFolder(name, user: "ana").path) ? "ana" : "bob"
            XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path], as: owner).status, 0)
            XCTAssertEqual(try sandbox.run(["submit", name], as: owner).status, 0)
            let process = try sandbox.start(["return", "\(owner)/\(name)", "--note", "again"], as: "fiona")
            usleep(UInt32.random(in: 2_000...40_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { interrupted += 1 }
            try checkInvariants(sandbox, expectedForms: forms)
        }
        XCTAssertGreaterThan(interrupted, 4, "too few runs were cut short to prove anything")
    }

    /// 30 forms, then `mi attach` of a large file and `mi submit` of each killed at a random
    /// moment, with no other mi in between; then one `mi list`, whose sweep must leave no
    /// temporary file, no media file form.json does not list, every form's status matching its
    /// area, and every form in exactly one place.
    func testOneCommandCleansWhatKilledAttachesAndSubmitsLeft() throws {
        let (sandbox, big, answers) = try Self.crashSandbox(megabytes: 32)
        let trials = 30
        var names: [String] = []
        for trial in 0..<trials {
            let name = try sandbox.newForm("extinguisher-check", name: "k\(trial)")
            XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path]).status, 0)
            names.append(name)
        }
        var generator = SystemRandomNumberGenerator()
        var interrupted = 0
        for name in names {
            for step in [["attach", name, "location", big.path, big.path], ["submit", name]] {
                let process = try sandbox.start(step)
                usleep(UInt32.random(in: 5_000...150_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { interrupted += 1 }
            }
        }
        XCTAssertGreaterThan(interrupted, trials / 2, "too few runs were cut short to prove anything")

        let list = try sandbox.run(["list", "--json"])
        XCTAssertEqual(list.status, 0, list.output)

        let all = FileManager.default.enumerator(atPath: sandbox.documents.path)?.compactMap { $0 as? String } ?? []
        XCTAssertEqual(all.filter { $0.contains(".mi-tmp-") }, [], "no temporary files remain")
        var places: [String: [String]] = [:]
        for path in sandbox.allFormFiles() {
            let folder = sandbox.documents.appendingPathComponent(path).deletingLastPathComponent()
            let data = try Data(contentsOf: folder.appendingPathComponent("form.json"))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], path)
            let id = try XCTUnwrap(object["id"] as? String, path)
            places[id, default: []].append(path)
            let area = path.split(separator: "/").first.map(String.init)
            XCTAssertEqual(object["status"] as? String, area == "Users" ? "incomplete" : "completed", "\(path): status matches the area")
            let answered = object["answers"] as? [String: [String: Any]] ?? [:]
            let listed = Set(answered.values.flatMap { $0["media"] as? [String] ?? [] })
            let onDisk = Set((try FileManager.default.contentsOfDirectory(atPath: folder.path)).filter { $0 != "form.json" })
            XCTAssertEqual(onDisk, listed, "\(path): the media on disk are exactly those form.json lists")
        }
        XCTAssertEqual(places.count, trials, "\(places)")
        for (id, paths) in places { XCTAssertEqual(paths.count, 1, "form \(id) is in \(paths)") }
    }
}
