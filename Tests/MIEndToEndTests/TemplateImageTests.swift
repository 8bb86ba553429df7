import Foundation
import TestSupport
import XCTest

/// Pictures in questions with the real `mi` and `mi-server`: downloaded with the template,
/// cached for offline use, shown by `mi fill` (path and `:img`), copied by `templates import`.
final class TemplateImageTests: XCTestCase {
    static let template = """
        {"id": "pictured", "title": "Pictures", "version": 1, "questions": [
          {"id": "watch", "type": "shortAnswer", "text": "What is it?", "image": "reloj.png"},
          {"id": "pen", "type": "shortAnswer", "text": "And this?", "image": "boligrafo.png"},
          {"id": "plain", "type": "trueFalse", "text": "Done?"}]}
        """

    static func samplePicture(_ name: String, _ sandbox: Sandbox) -> URL {
        sandbox.repository.appendingPathComponent("Samples/templates/mmse/\(name)")
    }

    /// `pictured.json` with its pictures (only `files` of them) in `folder/pictured/`.
    static func writeTemplate(into folder: URL, files: [String] = ["reloj.png", "boligrafo.png"], _ sandbox: Sandbox) throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("pictured"), withIntermediateDirectories: true)
        try Data(template.utf8).write(to: folder.appendingPathComponent("pictured.json"))
        for name in files {
            try FileManager.default.copyItem(at: samplePicture(name, sandbox), to: folder.appendingPathComponent("pictured/\(name)"))
        }
    }

    func cached(_ name: String, _ sandbox: Sandbox) -> URL {
        sandbox.documents.appendingPathComponent(".templates/pictured/\(name)")
    }

    func testSyncCachesThePicturesAndFillShowsThemOffline() throws {
        let sandbox = try Sandbox()
        let served = sandbox.root.appendingPathComponent("server-templates")
        try Self.writeTemplate(into: served, files: ["reloj.png"], sandbox)
        let server = try RunningServer(sandbox)

        // The server lacks boligrafo.png: the login's sync caches the template and names the missing file.
        let first = try Sandbox.execute(Sandbox.binary, ["login", "--user", "ana", "--password-stdin"],
                                        stdin: TestDirectory.password(for: "ana") + "\n",
                                        environment: sandbox.environment(for: "ana"), in: sandbox.root)
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.stdout.contains("Downloaded template pictured."), first.stdout)
        XCTAssertTrue(first.stderr.contains("could not download boligrafo.png of template pictured"), first.stderr)
        XCTAssertEqual(try Data(contentsOf: cached("reloj.png", sandbox)), try Data(contentsOf: Self.samplePicture("reloj.png", sandbox)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cached("boligrafo.png", sandbox).path))

        // The administrator adds it; the template did not change, the next sync fetches the picture anyway.
        try FileManager.default.copyItem(at: Self.samplePicture("boligrafo.png", sandbox),
                                         to: served.appendingPathComponent("pictured/boligrafo.png"))
        let second = try sandbox.run(["templates", "--json"])
        XCTAssertEqual(second.status, 0, second.output)
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((listed["downloaded"] as? [String])?.count, 0)
        XCTAssertEqual((listed["missingFiles"] as? [Any])?.count, 0, second.stdout)
        XCTAssertEqual(try Data(contentsOf: cached("boligrafo.png", sandbox)),
                       try Data(contentsOf: Self.samplePicture("boligrafo.png", sandbox)))

        // Offline: the form is started and filled from the cache, the picture's path shown.
        server.kill9()
        let name = try sandbox.newForm("pictured")
        let noDisplay = try sandbox.run(["fill", name], stdin: ":img\nreloj\n:x\n", environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        XCTAssertEqual(noDisplay.status, 0, noDisplay.output)
        XCTAssertTrue(noDisplay.stdout.contains("Imagen: \(cached("reloj.png", sandbox).path) (:img opens it)"), noDisplay.stdout)
        XCTAssertTrue(noDisplay.stdout.contains("No display to show the picture on (DISPLAY and WAYLAND_DISPLAY are not set): it is \(cached("reloj.png", sandbox).path)"),
                      noDisplay.stdout)
        XCTAssertTrue(noDisplay.stdout.contains("Imagen: \(cached("boligrafo.png", sandbox).path)"), "the next question's picture: \(noDisplay.stdout)")
        XCTAssertEqual(((try sandbox.formJSON(name)["answers"] as? [String: Any])?["watch"] as? [String: Any])?["value"] as? String, "reloj")

        // With a display, :img runs xdg-open on the cached file.
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let opened = sandbox.root.appendingPathComponent("opened.txt")
        let opener = bin.appendingPathComponent("xdg-open")
        try Data("#!/bin/sh\nprintf '%s' \"$1\" > '\(opened.path)'\n".utf8).write(to: opener)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let display = try sandbox.run(["fill", name], stdin: ":img\n:x\n", environment: ["DISPLAY": ":7", "PATH": path])
        XCTAssertEqual(display.status, 0, display.output)
        XCTAssertTrue(display.stdout.contains("Opened \(cached("boligrafo.png", sandbox).path) with xdg-open."), display.stdout)
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: opened.path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(try String(contentsOf: opened, encoding: .utf8), cached("boligrafo.png", sandbox).path)
    }

    func testRemovedTemplateTakesItsPicturesAlong() throws {
        let sandbox = try Sandbox()
        let served = sandbox.root.appendingPathComponent("server-templates")
        try Self.writeTemplate(into: served, sandbox)
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cached("reloj.png", sandbox).path))
        try FileManager.default.removeItem(at: served.appendingPathComponent("pictured.json"))
        try Data(TemplateFixture.sampleJSON.utf8).write(to: served.appendingPathComponent("pump-inspection.json"))
        let sync = try sandbox.run(["templates"])
        XCTAssertTrue(sync.stdout.contains("Removed pictured"), sync.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.documents.appendingPathComponent(".templates/pictured").path))
        withExtendedLifetime(server) {}
    }

    func testImportCopiesThePicturesBesideTheTemplateAndNamesAMissingOne() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("to-import")
        try Self.writeTemplate(into: folder, files: ["reloj.png"], sandbox)
        let result = try sandbox.run(["templates", "import", folder.appendingPathComponent("pictured.json").path])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stderr.contains("no picture boligrafo.png for template pictured"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: cached("reloj.png", sandbox)), try Data(contentsOf: Self.samplePicture("reloj.png", sandbox)))

        // mi print draws the cached picture under its question and names the one it lacks.
        let name = try sandbox.newForm("pictured")
        let pdf = sandbox.root.appendingPathComponent("pictured.pdf")
        let print = try sandbox.run(["print", name, "--output", pdf.path])
        XCTAssertEqual(print.status, 0, print.output)
        let images = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/pdfimages"), ["-list", pdf.path])
        let rows = images.stdout.split(separator: "\n").dropFirst(2)
        XCTAssertEqual(rows.count, 1, images.stdout)
        XCTAssertTrue(rows.first?.split(separator: " ").starts(with: ["1", "0", "image", "160", "160"]) == true, images.stdout)
        let text = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/pdftotext"), [pdf.path, "-"])
        XCTAssertTrue(text.stdout.contains("picture boligrafo.png not available"), text.stdout)

        // The shipped samples: the MMSE's pictures come along with the folder.
        try sandbox.importSamples()
        for name in ["reloj.png", "boligrafo.png"] {
            XCTAssertEqual(try Data(contentsOf: sandbox.documents.appendingPathComponent(".templates/mmse/\(name)")),
                           try Data(contentsOf: Self.samplePicture(name, sandbox)))
        }
    }
}
