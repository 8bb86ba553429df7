import Foundation
import XCTest

/// Consent and once per user through the real `mi` and the real mi-server, with the shipped
/// `ipaq` template (once per user, with a consent text).
final class ConsentAndOncePerUserTests: XCTestCase {
    static let answers = #"{"firstQuestionVigorous": 3, "secondQuestionVigorous": 30, "thirdQuestionModerate": 2, "fourthQuestionModerate": 40, "fifthQuestionWalk": 5, "sixthQuestionWalk": 30, "seventhQuestionSedentary": 300}"#

    /// The SHA-256 of the shipped ipaq template's consent text.
    static func consentDigest(_ sandbox: Sandbox) throws -> String {
        let data = try Data(contentsOf: sandbox.repository.appendingPathComponent("Samples/templates/ipaq.json"))
        let text = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["consent"] as? String)
        let sum = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/sha256sum"), [], stdin: text)
        return String(sum.stdout.prefix(64))
    }

    private func answersFile(_ sandbox: Sandbox) throws -> String {
        let file = sandbox.root.appendingPathComponent("ipaq-answers.json")
        try Data(Self.answers.utf8).write(to: file)
        return file.path
    }

    func testConsentIsRequiredAcceptedAndShownAndASecondFormWaitsForTheFirstsDeletion() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        _ = try sandbox.newForm("ipaq", name: "i1")
        let before = try Data(contentsOf: sandbox.formFolder("i1").appendingPathComponent("form.json"))

        let refused = try sandbox.run(["answer", "i1", "firstQuestionVigorous", "3"])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("consent of template ipaq"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--accept-consent"), refused.stderr)
        let submit = try sandbox.run(["submit", "i1", "--json"])
        XCTAssertEqual(submit.status, 65, submit.output)
        XCTAssertTrue(submit.stderr.contains("consent-required"), submit.stderr)
        // mi fill shows the text and stops on anything but an acceptance.
        let declined = try sandbox.run(["fill", "i1"], stdin: "no\n")
        XCTAssertEqual(declined.status, 65, declined.output)
        XCTAssertTrue(declined.output.contains("Consentimiento informado"), declined.output)
        XCTAssertEqual(try Data(contentsOf: sandbox.formFolder("i1").appendingPathComponent("form.json")), before, "nothing changed")
        XCTAssertTrue(try sandbox.run(["review", "i1"]).stdout.contains("Consent not accepted yet"))

        let accepted = try sandbox.run(["answer", "i1", "--file", try answersFile(sandbox), "--accept-consent", "--json"])
        XCTAssertEqual(accepted.status, 0, accepted.output)
        let form = try sandbox.formJSON("i1")
        let consent = try XCTUnwrap(form["consent"] as? [String: Any])
        XCTAssertEqual(consent["by"] as? String, "ana")
        XCTAssertEqual(consent["sha256"] as? String, try Self.consentDigest(sandbox))
        let audit = try XCTUnwrap(form["audit"] as? [[String: Any]])
        XCTAssertEqual(audit.compactMap { $0["action"] as? String }, ["created", "consented", "answered"])
        XCTAssertEqual(audit[1]["note"] as? String, try Self.consentDigest(sandbox))
        let review = try sandbox.run(["review", "i1", "--history"])
        XCTAssertTrue(review.stdout.contains("Consent accepted by ana on "), review.stdout)
        XCTAssertTrue(review.stdout.contains(try Self.consentDigest(sandbox)), review.stdout)
        let json = try JSONSerialization.jsonObject(with: Data(try sandbox.run(["review", "i1", "--json"]).stdout.utf8)) as? [String: Any]
        XCTAssertEqual(json?["consentAccepted"] as? Bool, true)

        // Once per user: a second form is refused while the first exists, incomplete or submitted.
        let second = try sandbox.run(["new", "ipaq", "--name", "i2"])
        XCTAssertEqual(second.status, 65, second.output)
        XCTAssertTrue(second.stderr.contains("ana already has a form of it: i1 (id "), second.stderr)
        XCTAssertEqual(try sandbox.run(["submit", "i1"]).status, 0)
        XCTAssertEqual(try sandbox.run(["new", "ipaq", "--name", "i2"]).status, 65)
        XCTAssertNoThrow(try sandbox.newForm("mmse", name: "m1"), "another template is free")
        XCTAssertEqual(try sandbox.run(["delete", "m1"]).status, 0)

        // mi fill accepts with a word, --accept-consent without asking.
        try FileManager.default.removeItem(at: sandbox.formFolder("i1", in: "CompletedMIs"))
        _ = try sandbox.newForm("ipaq", name: "i2")
        let filled = try sandbox.run(["fill", "i2"], stdin: "Acepto\n:x\n")
        XCTAssertEqual(filled.status, 0, filled.output)
        XCTAssertEqual((try sandbox.formJSON("i2")["consent"] as? [String: Any])?["sha256"] as? String, try Self.consentDigest(sandbox))
    }

    func testTheServerKeepsTheAcceptanceRefusesAForgedOneAndASecondFormAndMiNewAsksIt() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        try FileManager.default.copyItem(at: sandbox.repository.appendingPathComponent("Samples/templates/ipaq.json"),
                                         to: sandbox.root.appendingPathComponent("server-templates/ipaq.json"))
        var server: RunningServer? = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        _ = try sandbox.newForm("ipaq", name: "i1")
        XCTAssertEqual(try sandbox.run(["answer", "i1", "--file", try answersFile(sandbox), "--accept-consent"]).status, 0)
        XCTAssertEqual(try sandbox.run(["submit", "i1"]).status, 0)

        // Two copies under other ids: one with a forged acceptance, one honest second form.
        let original = sandbox.formFolder("i1", in: "CompletedMIs")
        func copy(_ name: String, edit: (inout [String: Any]) -> Void) throws -> String {
            let folder = sandbox.formFolder(name, in: "CompletedMIs")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var object = try sandbox.formJSON("i1", in: "CompletedMIs")
            let id = UUID().uuidString.lowercased()
            object["id"] = id
            object["name"] = name
            edit(&object)
            try JSONSerialization.data(withJSONObject: object).write(to: folder.appendingPathComponent("form.json"))
            return id
        }
        _ = try copy("forged") { object in
            var consent = object["consent"] as? [String: Any] ?? [:]
            consent["sha256"] = String(repeating: "0", count: 64)
            object["consent"] = consent
        }
        _ = try copy("twice") { _ in }
        let firstID = try XCTUnwrap(try sandbox.formJSON("i1", in: "CompletedMIs")["id"] as? String).lowercased()
        try sandbox.ensureLoggedIn("fiona")

        let forged = try sandbox.run(["upload", "ana/forged"], as: "fiona")
        XCTAssertEqual(forged.status, 69, forged.output)
        XCTAssertTrue(forged.stderr.contains("consent text of template ipaq"), forged.stderr)
        XCTAssertTrue(forged.stderr.contains("another text (SHA-256 0000"), forged.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("forged", in: "CompletedMIs").path), "kept")
        let forgedJSON = try sandbox.run(["upload", "ana/forged", "--json"], as: "fiona")
        XCTAssertTrue(forgedJSON.stdout.contains("consent"), forgedJSON.stdout)

        XCTAssertEqual(try sandbox.run(["upload", "ana/i1"], as: "fiona").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: original.path))
        let stored = try Data(contentsOf: sandbox.root.appendingPathComponent("server-data/submissions/\(firstID)/form.json"))
        let storedForm = try JSONSerialization.jsonObject(with: stored) as? [String: Any]
        XCTAssertEqual((storedForm?["consent"] as? [String: Any])?["sha256"] as? String, try Self.consentDigest(sandbox))
        let token = try sandbox.apiToken("fiona")
        XCTAssertTrue(try sandbox.curl(["-H", "Authorization: Bearer \(token)"], path: "/api/v1/submissions/\(firstID)").hasPrefix("HTTP/1.1 200"))

        let twice = try sandbox.run(["upload", "ana/twice"], as: "fiona")
        XCTAssertEqual(twice.status, 69, twice.output)
        XCTAssertTrue(twice.stderr.contains("ana already has a submission of it: form i1 (id \(firstID)), submitted "), twice.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("twice", in: "CompletedMIs").path), "kept")
        for name in ["twice", "forged"] { try FileManager.default.removeItem(at: sandbox.formFolder(name, in: "CompletedMIs")) }

        // The upload was remembered: mi new refuses. Forgotten, the server's list refuses again
        // and is remembered; then offline the memory does.
        let remembered = try sandbox.run(["new", "ipaq"])
        XCTAssertEqual(remembered.status, 65, remembered.output)
        XCTAssertTrue(remembered.stderr.contains("i1 (id \(firstID.prefix(8)), submitted "), remembered.stderr)
        XCTAssertTrue(remembered.stderr.contains("on the server"), remembered.stderr)
        try FileManager.default.removeItem(at: sandbox.documents.appendingPathComponent(".once"))
        let asked = try sandbox.run(["new", "ipaq"])
        XCTAssertEqual(asked.status, 65, asked.output)
        XCTAssertTrue(asked.stderr.contains("on the server"), asked.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.documents.appendingPathComponent(".once/ana.json").path))
        server?.kill9()
        server = nil
        let offline = try sandbox.run(["new", "ipaq"])
        XCTAssertEqual(offline.status, 65, offline.output)
        XCTAssertTrue(offline.stderr.contains("could not ask the server"), offline.stderr)
        XCTAssertTrue(offline.stderr.contains("i1 (id \(firstID.prefix(8))"), offline.stderr)
        XCTAssertEqual(sandbox.allFormFiles(), [], "nothing was created")
    }
}
