import Foundation
import TestSupport
import XCTest

/// Barcode, photo, audio and video questions through the real `mi`, zbarimg, mi-server and the
/// office in chromium. The codes are drawn by PyPI's qrcode and python-barcode (installed by
/// scripts/setup.sh) and read back by Debian's zbarimg.
final class MediaAndBarcodeTests: XCTestCase {
    static let template = #"""
        {"id": "asset-check", "title": "Asset check", "version": 1, "questions": [
          {"id": "tag", "type": "barcode", "text": "Asset tag"},
          {"id": "outlet", "type": "photo", "text": "Photo of the outlet"},
          {"id": "sound", "type": "audio", "text": "Recording of the pump", "maxFiles": 2},
          {"id": "clip", "type": "video", "text": "Video of the flow"}
        ]}
        """#

    var media: URL { Sandbox.repositoryRoot.appendingPathComponent("Samples/media") }

    func drawCodes(_ sandbox: Sandbox) throws -> URL {
        let folder = sandbox.root.appendingPathComponent("codes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The device tests' drawing: a QR code as a JPEG (tag.jpg), a Code 128, both in one
        // picture, and a picture without a code (blank.jpg).
        let script = Sandbox.repositoryRoot.appendingPathComponent("Tests/MIDevicesTests/Resources/draw_codes.py")
        _ = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, folder.path])
        return folder
    }

    func importTemplate(_ sandbox: Sandbox) throws {
        let folder = sandbox.root.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.template.utf8).write(to: folder.appendingPathComponent("asset-check.json"))
        let imported = try sandbox.run(["templates", "import", folder.path], as: "ana")
        XCTAssertEqual(imported.status, 0, imported.output)
    }

    func formBytes(_ sandbox: Sandbox, _ name: String) throws -> Data {
        try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"))
    }

    func answers(_ sandbox: Sandbox, _ name: String, in area: String = "Users") throws -> [String: [String: Any]] {
        try XCTUnwrap(try sandbox.formJSON(name, in: area)["answers"] as? [String: [String: Any]])
    }

    // MARK: - Barcodes

    func testCodesAreReadFromPhotosThroughZbarimgAndThePhotoIsKept() throws {
        let sandbox = try Sandbox()
        try importTemplate(sandbox)
        let codes = try drawCodes(sandbox)
        let name = try sandbox.newForm("asset-check", name: "asset-1")

        let qr = try sandbox.run(["answer", name, "tag", "--from-image", codes.appendingPathComponent("tag.jpg").path])
        XCTAssertEqual(qr.status, 0, qr.output)
        XCTAssertTrue(qr.stdout.contains("Attached Qid0(1).jpg (photo, "), qr.stdout)
        XCTAssertTrue(qr.stdout.contains("with the answer MI-HYD-00042"), qr.stdout)
        var tag = try XCTUnwrap(try answers(sandbox, name)["tag"])
        XCTAssertEqual(tag["value"] as? String, "MI-HYD-00042")
        XCTAssertEqual(tag["media"] as? [String], ["Qid0(1).jpg"])
        XCTAssertEqual(try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("Qid0(1).jpg")),
                       try Data(contentsOf: codes.appendingPathComponent("tag.jpg")), "the photo is kept as it was taken")

        // A Code 128 replaces the value; its photo is kept beside the first.
        let code128 = try sandbox.run(["answer", name, "2", "--from-image", codes.appendingPathComponent("code128.png").path, "--json"])
        XCTAssertEqual(code128.status, 65, "question 2 is the photo question: \(code128.output)")
        XCTAssertTrue(code128.stderr.contains("a photo question's answer is the file itself"), code128.stderr)
        let read = try sandbox.run(["answer", name, "tag", "--from-image", codes.appendingPathComponent("code128.png").path])
        XCTAssertEqual(read.status, 0, read.output)
        tag = try XCTUnwrap(try answers(sandbox, name)["tag"])
        XCTAssertEqual(tag["value"] as? String, "PUMP-7731")
        XCTAssertEqual(tag["media"] as? [String], ["Qid0(1).jpg", "Qid0(2).png"])

        // No code, several codes, no such photo: one message naming the question, nothing changes.
        let before = try formBytes(sandbox, name)
        let folderBefore = try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder(name).path).sorted()
        let blank = try sandbox.run(["answer", name, "tag", "--from-image", codes.appendingPathComponent("blank.jpg").path])
        XCTAssertEqual(blank.status, 65, blank.output)
        XCTAssertTrue(blank.stderr.contains("question tag (1 of 4): no barcode or QR code found in \(codes.path)/blank.jpg"), blank.stderr)
        XCTAssertTrue(blank.stderr.contains("nothing was saved"), blank.stderr)
        let both = try sandbox.run(["answer", name, "tag", "--from-image", codes.appendingPathComponent("both.png").path])
        XCTAssertEqual(both.status, 65, both.output)
        XCTAssertTrue(both.stderr.contains("shows 2 different codes"), both.stderr)
        XCTAssertTrue(both.stderr.contains("\"MI-HYD-00042\"") && both.stderr.contains("\"PUMP-7731\""), both.stderr)
        let missing = try sandbox.run(["answer", name, "tag", "--from-image", codes.appendingPathComponent("nowhere.jpg").path, "--json"])
        XCTAssertEqual(missing.status, 66, missing.output)
        XCTAssertTrue(missing.stderr.contains("\"code\""), "--json errors are JSON: \(missing.stderr)")
        // A typed code with a scanner's Tab inside is refused like any text with a control character.
        let control = try sandbox.run(["answer", name, "tag", "PUMP\t7731"])
        XCTAssertEqual(control.status, 65, control.output)
        let empty = try sandbox.run(["answer", name, "tag", " "])
        XCTAssertEqual(empty.status, 65, empty.output)
        XCTAssertEqual(try formBytes(sandbox, name), before, "form.json unchanged by every refusal")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder(name).path).sorted(), folderBefore,
                       "no photo was copied by a refusal")

        // Typed or scanned by a USB scanner (it types the code and Enter): `mi fill` reads the line;
        // `:scan PHOTO` reads a photo.
        let second = try sandbox.newForm("asset-check", name: "asset-2")
        let scanned = try sandbox.run(["fill", second], stdin: ":scan \(codes.appendingPathComponent("tag.jpg").path)\n:x\n")
        XCTAssertEqual(scanned.status, 0, scanned.output)
        XCTAssertTrue(scanned.stdout.contains("Read MI-HYD-00042 from the photo, kept as Qid0(1).jpg."), scanned.stdout)
        XCTAssertEqual(try answers(sandbox, second)["tag"]?["value"] as? String, "MI-HYD-00042")
        let third = try sandbox.newForm("asset-check", name: "asset-3")
        let usb = try sandbox.run(["fill", third], stdin: "VLV-00017\r\n:x\n")
        XCTAssertEqual(usb.status, 0, usb.output)
        XCTAssertEqual(try answers(sandbox, third)["tag"]?["value"] as? String, "VLV-00017")
    }

    // MARK: - Media answers, local

    /// On a terminal: `mi fill` asks the photo's path, Tab completes it, a file of another kind is
    /// refused and asked again.
    func testAPhotoQuestionAsksForItsFileOnATerminal() throws {
        let sandbox = try Sandbox()
        try importTemplate(sandbox)
        let name = try sandbox.newForm("asset-check", name: "asset-1")
        XCTAssertEqual(try sandbox.run(["answer", name, "tag", "PMP-00042"]).status, 0)
        try FileManager.default.copyItem(at: media.appendingPathComponent("gauge.jpg"),
                                         to: sandbox.root.appendingPathComponent("outlet-photo.jpg"))
        let (process, terminal) = try sandbox.startOnTerminal(["fill", name], plainLocale: false)
        defer { if process.isRunning { process.terminate() } }

        XCTAssertTrue(terminal.waitFor("Path of the photo file > "), terminal.output)
        terminal.type(media.appendingPathComponent("pump-noise.ogg").path + "\r")
        XCTAssertTrue(terminal.waitFor("pump-noise.ogg is an audio file, but the question takes a photo"), terminal.output)
        XCTAssertTrue(terminal.waitFor("Path of the photo file > ", occurrence: 2), terminal.output)
        terminal.type("outlet-ph\t\r")
        XCTAssertTrue(terminal.waitFor("Attached outlet-photo.jpg as Qid1(1).jpg"), terminal.output)
        XCTAssertTrue(terminal.waitFor("Up to 2 files: one path a line, Enter when done."), terminal.output)
        XCTAssertTrue(terminal.waitFor("Path of the audio file > "), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("type the path of the audio file, or add a comment"), terminal.output)
        terminal.type(":x\r")
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)
        let outlet = try XCTUnwrap(try answers(sandbox, name)["outlet"])
        XCTAssertEqual(outlet["media"] as? [String], ["Qid1(1).jpg"])
        XCTAssertNil(outlet["value"])
    }

    /// `mi answer FORM Q PATH` attaches; `mi attach` still works; wrong kinds and too many files
    /// are refused with form.json unchanged; the file counts as the answer for review and submit.
    func testTheFileIsTheAnswerForReviewPrintAndSubmit() throws {
        let sandbox = try Sandbox()
        try importTemplate(sandbox)
        let name = try sandbox.newForm("asset-check", name: "asset-1")
        let gauge = media.appendingPathComponent("gauge.jpg").path, seal = media.appendingPathComponent("seal.png").path
        let noise = media.appendingPathComponent("pump-noise.ogg").path, running = media.appendingPathComponent("pump-running.webm").path
        XCTAssertEqual(try sandbox.run(["answer", name, "tag", "PMP-00042"]).status, 0)

        let before = try formBytes(sandbox, name)
        for (arguments, message) in [
            (["answer", name, "outlet", noise], "question outlet (2 of 4): pump-noise.ogg is an audio file, but the question takes a photo (gif, heic, jpeg, jpg, png, webp)"),
            (["attach", name, "outlet", gauge, seal], "question outlet (2 of 4): the question takes one photo, and it would have 2"),
            (["attach", name, "clip", gauge], "question clip (4 of 4): gauge.jpg is a photo file, but the question takes a video"),
            (["answer", name, "sound", noise, noise, noise], "the question takes at most 2 files, and it would have 3"),
            (["answer", name, "--file", "-"], "question outlet (2 of 4): a photo question takes no typed value: its answer is the attached photo"),
            (["answer", name, "outlet", gauge, "--comment", "bell\u{7}"], "comment on outlet"),
        ] {
            let refused = try sandbox.run(arguments, stdin: #"{"outlet": "gauge.jpg"}"#)
            XCTAssertEqual(refused.status, 65, "\(arguments): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        XCTAssertEqual(try formBytes(sandbox, name), before, "form.json unchanged by every refusal")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder(name).path), ["form.json"])

        let submitEarly = try sandbox.run(["submit", name])
        XCTAssertEqual(submitEarly.status, 65, submitEarly.output)
        XCTAssertTrue(submitEarly.stderr.contains("outlet (2)"), submitEarly.stderr)

        let answered = try sandbox.run(["answer", name, "outlet", gauge])
        XCTAssertEqual(answered.status, 0, answered.output)
        XCTAssertTrue(answered.stdout.contains("Attached Qid1(1).jpg (photo, "), answered.stdout)
        XCTAssertEqual(try sandbox.run(["attach", name, "sound", noise, noise]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", name, "clip", running, "--comment", "Flow filmed from the kerb"]).status, 0)

        let review = try sandbox.run(["review", name, "--json"])
        XCTAssertEqual(review.status, 0, review.output)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any])
        let questions = try XCTUnwrap(object["questions"] as? [[String: Any]])
        XCTAssertEqual(questions.map { $0["done"] as? Bool }, [true, true, true, true])
        XCTAssertEqual(questions.map { $0["type"] as? String }, ["barcode", "photo", "audio", "video"])
        XCTAssertNil(questions[1]["value"])
        XCTAssertEqual((questions[2]["media"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["Qid2(1).ogg", "Qid2(2).ogg"])
        XCTAssertEqual(questions[2]["maxFiles"] as? Int, 2)
        let text = try sandbox.run(["review", name])
        // Each file once: the answer counts them, the MEDIA column names them with their sizes.
        XCTAssertTrue(text.stdout.contains("1 photo attached (see MEDIA)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("2 audio recordings attached (see MEDIA)"), text.stdout)
        for file in ["Qid1(1).jpg", "Qid2(1).ogg", "Qid2(2).ogg"] {
            XCTAssertEqual(text.stdout.components(separatedBy: file).count - 1, 1, "\(file) shown once: \(text.stdout)")
        }
        XCTAssertTrue(text.stdout.contains("Qid1(1).jpg (photo, "), text.stdout)
        XCTAssertTrue(text.stdout.contains("4 of 4 questions done"), text.stdout)

        let pdf = sandbox.root.appendingPathComponent("asset.pdf")
        let printed = try sandbox.run(["print", name, "--output", pdf.path])
        XCTAssertEqual(printed.status, 0, printed.output)
        let pdfText = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-layout", "-enc", "UTF-8", pdf.path, "-"])
        XCTAssertTrue(pdfText.contains("1 photo attached (below)"), pdfText)
        XCTAssertTrue(pdfText.contains("Qid1(1).jpg"), "the photo's thumbnail caption: \(pdfText)")
        XCTAssertTrue(pdfText.contains("photo (one file)"), pdfText)
        XCTAssertTrue(pdfText.contains("4 of 4 questions answered"), pdfText)

        // Detaching the only photo reopens the question.
        XCTAssertEqual(try sandbox.run(["detach", name, "Qid1(1).jpg"]).status, 0)
        XCTAssertEqual(try sandbox.run(["submit", name]).status, 65)
        XCTAssertEqual(try sandbox.run(["answer", name, "outlet", seal]).status, 0)
        let submitted = try sandbox.run(["submit", name])
        XCTAssertEqual(submitted.status, 0, submitted.output)
    }

    // MARK: - Server, office, exports, statistics, simulation, search

    func testMediaAnswersUploadShowInTheOfficeAndExport() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        try Data(Self.template.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/asset-check.json"))
        let server = try RunningServer(sandbox)
        let codes = try drawCodes(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        let name = try sandbox.newForm("asset-check", name: "asset-7")
        XCTAssertEqual(try sandbox.run(["answer", name, "tag", "--from-image", codes.appendingPathComponent("tag.jpg").path]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", name, "outlet", media.appendingPathComponent("gauge.jpg").path]).status, 0)
        let noise = media.appendingPathComponent("pump-noise.ogg").path
        XCTAssertEqual(try sandbox.run(["answer", name, "sound", noise, noise]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", name, "clip", "--comment", "No camera for video today"]).status, 0)
        let submitted = try sandbox.run(["submit", name])
        XCTAssertEqual(submitted.status, 0, submitted.output)

        // Simulated forms: plausible asset tags, and a comment where no file can be made up.
        let simulated = try sandbox.run(["simulate", "asset-check", "--count", "3", "--seed", "4", "--submit"])
        XCTAssertEqual(simulated.status, 0, simulated.output)
        for index in 1...3 {
            let answers = try answers(sandbox, "sim-4-\(index)", in: "CompletedMIs")
            if let tag = answers["tag"]?["value"] as? String {
                XCTAssertNotNil(tag.range(of: #"^[A-Z]{3}-\d{5}(-[ABC])?$"#, options: .regularExpression), tag)
            }
            XCTAssertNil(answers["outlet"]?["value"])
            XCTAssertNotNil(answers["outlet"]?["comment"] as? String, "a photo cannot be simulated: a comment says so")
        }

        // Statistics over the four forms: the real one answered with files, the simulated with comments.
        let stats = try sandbox.run(["stats", "asset-check", "--json"])
        XCTAssertEqual(stats.status, 0, stats.output)
        let statistics = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let figures = try XCTUnwrap(statistics["questions"] as? [[String: Any]])
        XCTAssertEqual(figures[1]["answered"] as? Int, 1)
        XCTAssertEqual(figures[1]["commentOnly"] as? Int, 3)
        XCTAssertEqual(figures[2]["answered"] as? Int, 1)
        XCTAssertEqual((figures[2]["media"] as? [[String: Any]])?.first?["count"] as? Int, 2)
        let statsText = try sandbox.run(["stats", "asset-check"])
        XCTAssertEqual(statsText.status, 0, statsText.output)
        XCTAssertTrue(statsText.stdout.contains("answered 1 · comment only 3 · unanswered 0"), statsText.stdout)
        XCTAssertTrue(statsText.stdout.contains("media: audio 2"), statsText.stdout)

        // Exports: the file names in one cell, space-separated; JSONL as form.json.
        let archive = sandbox.root.appendingPathComponent("assets.zip")
        let exported = try sandbox.run(["export", "asset-check", "--output", archive.path])
        XCTAssertEqual(exported.status, 0, exported.output)
        let csv = try XCTUnwrap(try ZipArchiveReader(Array(try Data(contentsOf: archive))).entry("asset-check.csv"))
        let rows = String(decoding: csv.data, as: UTF8.self).split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = rows[0].map { $0.replacingOccurrences(of: "\u{FEFF}", with: "") }
        let real = try XCTUnwrap(rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }.first { $0["tag"] == "MI-HYD-00042" })
        XCTAssertEqual(real["outlet"], "Qid1(1).jpg")
        XCTAssertEqual(real["sound"], "Qid2(1).ogg Qid2(2).ogg")
        XCTAssertEqual(real["clip"], "")
        XCTAssertEqual(real["clip-comment"], "No camera for video today")
        let jsonl = sandbox.root.appendingPathComponent("assets.jsonl")
        XCTAssertEqual(try sandbox.run(["export", "asset-check", "--output", jsonl.path, "--format", "jsonl"]).status, 0)
        let lines = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        let line = try XCTUnwrap(lines.first { $0.contains("MI-HYD-00042") })
        let form = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(((form["answers"] as? [String: Any])?["outlet"] as? [String: Any])?["media"] as? [String], ["Qid1(1).jpg"])

        // Upload: the media arrive, the office shows the answer and the photo, and the code is searchable.
        let upload = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let id = try XCTUnwrap(form["id"] as? String).lowercased()
        let stored = sandbox.root.appendingPathComponent("server-data")
        let found = FileManager.default.enumerator(atPath: stored.path)?.compactMap { $0 as? String }.filter { $0.contains(id) } ?? []
        XCTAssertTrue(found.contains { $0.hasSuffix("Qid1(1).jpg") } && found.contains { $0.hasSuffix("Qid2(2).ogg") }
                      && found.contains { $0.hasSuffix("Qid0(1).jpg") }, "the server stores every file: \(found)")
        let run = try browse(sandbox, facts: ["id": id, "password": TestDirectory.password(for: "fiona")])
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the browser steps:\n\(run.output)\nmi-server's log (last 2000):\n\(log.suffix(2000))")
        XCTAssertTrue(run.stdout.contains("all 4 steps passed"), run.output)
        withExtendedLifetime(server) {}
    }

    /// The office steps, with mi_office_browser.py's `Office` and sign-in.
    static let browserSteps = #"""
        import json, sys
        sys.path.insert(0, sys.argv[1])
        import mi_office_browser as b
        base, profile, shots, facts = sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
        office = b.Office(base, profile, shots, "media-")

        def section(question):
            return office.find(f'section.question[data-question-id="{question}"]')

        def answers_drawn():
            office.open(f"/submissions/{facts['id']}", "submission")
            header = office.find("#submission-header").text
            b.check("4 of 4 questions · 4 media" in header, f"the files count as answers in the header: {header!r}")
            tag = section("tag").text
            b.check("MI-HYD-00042" in tag, f"the barcode's value is not shown: {tag!r}")
            b.check(section("tag").find_elements(b.By.CSS_SELECTOR, "img.photo"), "the tag's photo is not shown")
            outlet = section("outlet")
            answer = outlet.find_element(b.By.CSS_SELECTOR, ".media-answer").text
            b.check(answer == "1 photo attached", f"the photo question's answer: {answer!r}")
            b.check("no answer" not in outlet.text, f"the photo question says no answer: {outlet.text!r}")
            photo = outlet.find_element(b.By.CSS_SELECTOR, "a.full-size img.photo")
            b.WebDriverWait(office.driver, 10).until(lambda d: d.execute_script("return arguments[0].complete", photo))
            width = office.driver.execute_script("return arguments[0].naturalWidth", photo)
            b.check(width and width > 0, f"the outlet photo did not load (naturalWidth {width})")
            sound = section("sound")
            b.check("2 audio recordings attached" in sound.text, f"the audio answer: {sound.text!r}")
            b.check(len(sound.find_elements(b.By.CSS_SELECTOR, "audio.media-audio")) == 2, "two audio players")
            clip = section("clip")
            b.check("no answer" in clip.text and "No camera for video today" in clip.text, f"the video question: {clip.text!r}")
            b.check("open" not in (clip.get_attribute("class") or "").split(), "a comment makes the video question done")
            return f"photo {width} px wide"

        def searchable():
            office.open("/submissions?q=MI-HYD-00042", "search")
            found = office.all("table#submissions tr.submission")
            b.check(len(found) == 1, f"q=MI-HYD-00042 found {len(found)} rows")

        def statistics():
            office.open("/templates/asset-check/stats", "statistics")
            outlet = office.find('section.question-stats[data-question-id="outlet"] p.counts').text
            b.check("1 answered" in outlet and "files: 1 photo" in outlet, f"the photo question's counts: {outlet!r}")
            whole = office.find('section.question-stats[data-question-id="outlet"]').text
            b.check("No value to chart" not in whole, f"the files are the photo question's answers: {whole!r}")
            sound = office.find('section.question-stats[data-question-id="sound"] p.counts').text
            b.check("1 answered" in sound and "2 audio" in sound, f"the audio question's counts: {sound!r}")
            tag = office.find('section.question-stats[data-question-id="tag"]').text
            b.check("MI-HYD-00042" in tag, f"the barcode's values: {tag!r}")

        try:
            ok = office.step("fiona signs in", b.signed_in, office, "fiona", facts["password"], "fiona")
            if ok:
                office.step("the answers are drawn: code, photo, recordings, comment", answers_drawn)
                office.step("the barcode is searchable", searchable)
                office.step("statistics count the files as answers", statistics)
        finally:
            office.driver.quit()
        if office.failures:
            print("failed: " + "; ".join(office.failures), flush=True)
            sys.exit(1)
        print(f"all {office.passed} steps passed", flush=True)
        """#

    func browse(_ sandbox: Sandbox, facts: [String: Any]) throws -> RunResult {
        let script = try XCTUnwrap(Bundle.module.url(forResource: "mi_office_browser", withExtension: "py"))
        let screenshots = OfficeBrowserTests.screenshots
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        for old in try FileManager.default.contentsOfDirectory(atPath: screenshots.path) where old.hasPrefix("media-") {
            try FileManager.default.removeItem(at: screenshots.appendingPathComponent(old))
        }
        let factsJSON = String(decoding: try JSONSerialization.data(withJSONObject: facts), as: UTF8.self)
        return try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/timeout"),
                                   ["--kill-after=10", "300", "python3", "-c", Self.browserSteps,
                                    script.deletingLastPathComponent().path, "http://127.0.0.1:\(sandbox.server.port)",
                                    sandbox.root.appendingPathComponent("chromium-profile").path, screenshots.path, factsJSON],
                                   environment: ProcessInfo.processInfo.environment.merging(["HOME": sandbox.root.path]) { $1 },
                                   in: sandbox.root)
    }
}
