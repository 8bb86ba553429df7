import Foundation
import XCTest

/// Bad input gets one clear message, a non-zero exit, and changes nothing on disk.
final class BadInputTests: XCTestCase {
    func testEachBadAnswerIsRefusedAndLeavesTheFormUntouched() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        XCTAssertEqual(try sandbox.run(["answer", name, "pressure", "5"]).status, 0)
        let file = sandbox.formFolder(name).appendingPathComponent("form.json")
        let before = try Data(contentsOf: file)
        let badAnswers = sandbox.root.appendingPathComponent("bad.json")
        try Data(#"{"guard": true, "pressure": "lots"}"#.utf8).write(to: badAnswers)
        let brokenAnswers = sandbox.root.appendingPathComponent("broken.json")
        try Data(#"{"guard": tru"#.utf8).write(to: brokenAnswers)

        let cases: [([String], String)] = [
            (["answer", name, "pressure", "16.5"], "question pressure (6 of 9): 16.5 is above the maximum 16"),
            (["answer", name, "hours", "-1"], "question hours (7 of 9): -1 is below the minimum 0"),
            (["answer", name, "noise", "1", "2"], "question noise (4 of 9): only one answer may be chosen"),
            (["answer", name, "checks", "1", "2", "3"], "question checks (5 of 9): at most 2 answers may be chosen"),
            (["answer", name, "leaks", "Gearbox"], "question leaks (2 of 9): \"Gearbox\" is not one of the options"),
            (["answer", name, "leaks", "None, Casing drain"], "question leaks (2 of 9): None cannot be chosen together with a place that leaks"),
            (["answer", name, "bearings", #"[["1","2"],["3","4"],["5","6"]]"#], "cell [2, 1] (Motor / Vibration) takes no value"),
            (["answer", name, "bearings", #"[["1","2"]]"#], "expected 3 rows, found 1"),
            (["answer", name, "flow", "3"], "question flow: no such question"),
            (["answer", name, "guard", "perhaps"], "expected true or false"),
            (["answer", name, "--file", badAnswers.path], "question pressure (6 of 9): \"lots\" is not a number"),
            (["answer", name, "--file", brokenAnswers.path], "the answers file is not valid JSON"),
            (["answer", name, "--file", "/nonexistent/answers.json"], "cannot read the answers file"),
            (["attach", name, "guard", "/nonexistent/photo.jpg"], "no such file: /nonexistent/photo.jpg"),
            (["attach", name, "guard", sandbox.config.path], "is not a photo, video or audio file"),
            (["detach", name, "../../../etc/passwd"], "has no media"),
        ]
        for (arguments, expected) in cases {
            let result = try sandbox.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments) should fail")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): expected «\(expected)» in «\(result.stderr)»")
            XCTAssertFalse(result.stderr.contains("Fatal error") || result.stderr.contains("Stack dump"), result.stderr)
            XCTAssertEqual(try Data(contentsOf: file), before, "\(arguments) changed form.json")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder(name).path), ["form.json"])
    }

    func testHostileNamesAreRefusedBeforeAnyPathIsBuilt() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        for user in ["../ana", "a/b", "bad\u{1}name", ".hidden"] {
            let result = try sandbox.run(["login", "--user", user, "--password-stdin"], as: nil, stdin: "ana-password\n")
            XCTAssertNotEqual(result.status, 0, user)
            XCTAssertTrue(result.stderr.contains("not a valid") || result.stderr.contains("wrong user name or password"), result.stderr)
        }
        for name in ["../escape", "a/b", "..", "x\ty"] {
            let result = try sandbox.run(["new", "extinguisher-check", "--name", name])
            XCTAssertNotEqual(result.status, 0, name)
            XCTAssertTrue(result.stderr.contains("is not a valid form name"), result.stderr)
        }
        let template = try sandbox.run(["new", "../../etc/passwd"])
        XCTAssertTrue(template.stderr.contains("is not a valid template id"), template.stderr)
        XCTAssertEqual(sandbox.allFormFiles(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("escape").path))
    }

    func testMalformedConfigurationReportsEveryProblemAndChangesNothing() throws {
        let sandbox = try Sandbox()
        let bad = sandbox.root.appendingPathComponent("Bad.plist")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>Server</key><dict><key>Scheme</key><string>ftp</string><key>Domain</key><string>x</string><key>Port</key><integer>80</integer></dict>
              <key>LDAP</key><dict><key>BaseDN</key><string>dc=x</string><key>UserFilter</key><string>(uid=%s)</string>
                <key>ForemanGroup</key><string>cn=f</string><key>GroupMemberAttribute</key><string>member</string></dict>
              <key>Documents</key><string>Documents</string>
              <key>ExpiryDays</key><string>seven</string>
              <key>ReminderDays</key><array><integer>1</integer></array>
              <key>Colour</key><string>blue</string>
            </dict></plist>
            """.utf8).write(to: bad)
        let check = try sandbox.run(["config", "check", "--config", bad.path], as: nil)
        XCTAssertNotEqual(check.status, 0)
        XCTAssertTrue(check.stdout.contains("error: LDAP.URL: missing"), check.stdout)
        XCTAssertTrue(check.stdout.contains("error: ExpiryDays: expected an integer, found a string"), check.stdout)
        XCTAssertTrue(check.stdout.contains("error: Server.Scheme: must be \"http\" or \"https\""), check.stdout)
        XCTAssertTrue(check.stdout.contains("warning: Colour: unknown key"), check.stdout)

        try sandbox.ensureLoggedIn("ana")
        let before = sandbox.allFormFiles()
        let list = try sandbox.run(["new", "extinguisher-check", "--config", bad.path])
        XCTAssertNotEqual(list.status, 0)
        XCTAssertTrue(list.stderr.contains("has 3 problems"), list.stderr)
        XCTAssertEqual(sandbox.allFormFiles(), before, "nothing may be created")

        try Data("not a plist <<<".utf8).write(to: bad)
        let garbage = try sandbox.run(["list", "--config", bad.path])
        XCTAssertNotEqual(garbage.status, 0)
        XCTAssertTrue(garbage.stderr.contains("Config.plist"), garbage.stderr)

        let good = try sandbox.run(["config", "check"], as: nil)
        XCTAssertEqual(good.status, 0, good.output)
    }

    func testCorruptedFormIsReportedAndSkippedNeverDeleted() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let good = try sandbox.newForm("extinguisher-check", name: "good")
        let bad = try sandbox.newForm("extinguisher-check", name: "bad")
        let file = sandbox.formFolder(bad).appendingPathComponent("form.json")
        let garbage = Data("{\"formatVersion\":1,\"id\":\"oops".utf8)
        try garbage.write(to: file)
        let list = try sandbox.run(["list"])
        XCTAssertEqual(list.status, 0, list.output)
        XCTAssertTrue(list.stdout.contains(good), list.stdout)
        XCTAssertTrue(list.stderr.contains("skipped Users/ana/bad"), list.stderr)
        let review = try sandbox.run(["review", "bad"])
        XCTAssertNotEqual(review.status, 0)
        XCTAssertTrue(review.stderr.contains("cannot be read"), review.stderr)
        XCTAssertEqual(try Data(contentsOf: file), garbage)
        XCTAssertEqual(try sandbox.run(["purge"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: file), garbage)
    }

    func testAnotherProcessHoldingTheLockMakesMiWaitThenGiveUpClearly() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-x", sandbox.documents.appendingPathComponent(".lock").path, "-c", "sleep 3"]
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.5)
        let result = try sandbox.run(["list"], environment: ["MI_LOCK_TIMEOUT": "0.5"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("is busy"), result.stderr)
        holder.waitUntilExit()
        XCTAssertEqual(try sandbox.run(["list"]).status, 0)
    }

    func testConcurrentAnswersFromTwoProcessesAreBothKept() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        let group = DispatchGroup()
        let questions = ["guard": "yes", "pressure": "7", "hours": "10", "notes": "ok", "noise": "1", "leaks": "1"]
        for (question, value) in questions {
            group.enter()
            DispatchQueue.global().async {
                _ = try? sandbox.run(["answer", name, question, value])
                group.leave()
            }
        }
        group.wait()
        let answers = try XCTUnwrap(try sandbox.formJSON(name)["answers"] as? [String: Any])
        XCTAssertEqual(Set(answers.keys), Set(questions.keys))
    }
}
