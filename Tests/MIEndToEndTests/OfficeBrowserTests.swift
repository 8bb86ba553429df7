import Foundation
import XCTest

/// The office in a real browser: Resources/mi_office_browser.py drives Debian's headless chromium
/// through Selenium against a real mi-server, over submissions the real `mi` made and uploaded.
/// Every page it visits is saved as a 1280×900 PNG in `.build/office-screenshots/`, and at a
/// phone's 390×844 as `phone-….png`.
final class OfficeBrowserTests: XCTestCase {
    static let word = "verdigris"
    static let hostile = ["<img src=x onerror=alert(1)>", "<script>window.__miHostile=1</script>"]
    static let foremanComment = "Seal leak confirmed: order a new mechanical seal"
    /// The steps the script runs when every page is there (run_all in the script).
    static let steps = 41
    /// One unbroken word in bob's notes, as long as a pasted serial or path: it must wrap, not
    /// widen the submission page (it made it 1,576 px wide at 1280).
    static let longWord = String(repeating: "Manometerkalibrierungsprotokoll", count: 6)

    /// Where the screenshots go: the package's own .build folder (review-…, editor-…).
    static var screenshots: URL { Sandbox.repositoryRoot.appendingPathComponent(".build/office-screenshots") }

    func testForemanAndTechnicianInChromium() throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/pdftotext"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/setup.sh as root")
        }
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let facts = try prepareSubmissions(sandbox)

        for old in (try? FileManager.default.contentsOfDirectory(atPath: Self.screenshots.path)) ?? [] where old.hasPrefix("phone-") {
            try FileManager.default.removeItem(at: Self.screenshots.appendingPathComponent(old))
        }
        let run = try browse(sandbox, mode: [], facts: facts, screenshots: "review-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the browser steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all \(Self.steps) steps passed"), "not every step ran and passed:\n\(run.stdout.suffix(400))")
        XCTAssertFalse(log.contains("Fatal error"), "mi-server crashed:\n\(log.suffix(3000))")

        // The artifacts: a PNG per page visited, each the size of the window.
        let pictures = try FileManager.default.contentsOfDirectory(atPath: Self.screenshots.path)
            .filter { $0.hasPrefix("review-") && $0.hasSuffix(".png") }.sorted()
        XCTAssertGreaterThanOrEqual(pictures.count, 20, "screenshots: \(pictures)")
        XCTAssertTrue(pictures.contains { $0.hasSuffix("-submission.png") }, "no screenshot of the submission page: \(pictures)")
        for picture in pictures {
            let size = try Self.pngSize(Self.screenshots.appendingPathComponent(picture))
            XCTAssertEqual(size.width, 1280, picture)
            XCTAssertEqual(size.height, 900, picture)
        }
        let phone = try FileManager.default.contentsOfDirectory(atPath: Self.screenshots.path)
            .filter { $0.hasPrefix("phone-") && $0.hasSuffix(".png") }.sorted()
        XCTAssertGreaterThanOrEqual(phone.count, 8, "a phone-sized screenshot of every page: \(phone)")
        for picture in phone {
            let size = try Self.pngSize(Self.screenshots.appendingPathComponent(picture))
            XCTAssertEqual(size.width, 390, picture)
            XCTAssertEqual(size.height, 844, picture)
        }
        withExtendedLifetime(server) {}
    }

    /// fiona builds a template in the editor — 7 options with `Max-answers` 2, a 3×3 table with 2
    /// no-value cells and a comma in a row's label — and publishes it after confirming; `mi
    /// templates --refresh` downloads it and `mi answer` enforces both rules. On the way the editor
    /// refuses a new template with pump-inspection's id, keeps no-value cells with their rows
    /// while rows move, reports a repeated id whose text is empty, changes a question's type,
    /// warns before leaving unpublished changes, and a second publish makes no extra version.
    func testEditorPublishesATemplateThatMiEnforces() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let options = ["Stem", "Bonnet", "Body", "Seat", "Packing", "Flange", "Actuator"]
        let facts: [String: Any] = [
            "templateId": "valve-check", "templateTitle": "Gate valve — quarterly check",
            "choiceId": "leak-points", "options": options, "tableId": "flanges",
            "rows": ["North", "East, upper", "South"], "columns": ["Bolt 1", "Bolt 2", "Bolt 3"],
            "noCells": [[0, 1], [2, 2]], "fionaPassword": TestDirectory.password(for: "fiona"),
            "existingTemplate": "pump-inspection", "optionName": "actuator",
        ]
        let run = try browse(sandbox, mode: ["--editor"], facts: facts, screenshots: "editor-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the editor's steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 13 steps passed"), "not every step ran and passed (above)")
        guard run.status == 0 else { return }  // nothing was published: the rest would only repeat it

        let refresh = try sandbox.run(["templates", "--refresh", "--json"], as: "ana")
        XCTAssertEqual(refresh.status, 0, refresh.output)
        XCTAssertTrue(refresh.stdout.contains("valve-check"), "the published template is downloaded: \(refresh.output)")
        _ = try sandbox.newForm("valve-check", as: "ana", name: "valve-1")
        let tooMany = try sandbox.run(["answer", "valve-1", "leak-points", "Stem, Bonnet, Body"], as: "ana")
        XCTAssertEqual(tooMany.status, 65, "three choices where Max-answers is 2: \(tooMany.output)")
        let seventh = try sandbox.run(["answer", "valve-1", "leak-points", "Stem, Actuator"], as: "ana")
        XCTAssertEqual(seventh.status, 0, "two choices, one the seventh option: \(seventh.output)")
        // The seventh option was given a name in the editor: the answer stores it.
        let stored = try sandbox.formJSON("valve-1", user: "ana")
        XCTAssertEqual(((stored["answers"] as? [String: Any])?["leak-points"] as? [String: Any])?["value"] as? [String], ["Stem", "actuator"],
                       "\(stored["answers"] ?? "none")")
        let intoNoValue = try sandbox.run(["answer", "valve-1", "flanges", #"[["40","41","42"],["43","44","45"],["46","47","48"]]"#], as: "ana")
        XCTAssertEqual(intoNoValue.status, 65, "a value in a no-value cell: \(intoNoValue.output)")
        let table = try sandbox.run(["answer", "valve-1", "flanges", #"[["40",null,"42"],["43","44","45"],["46","47",null]]"#], as: "ana")
        XCTAssertEqual(table.status, 0, "null in exactly the two no-value cells: \(table.output)")
        let pressure = try sandbox.run(["answer", "valve-1", "pressure", "12.5"], as: "ana")
        XCTAssertEqual(pressure.status, 65, "the numeric question was made integer-only: \(pressure.output)")
        withExtendedLifetime(server) {}
    }

    /// The editor draws every setting from MIKit's registry (each type's `editorFields`, the
    /// template's `Template.editorFields`): fiona ticks the template's one-form-per-technician
    /// and capture-location flags, builds a numeric question through its checkbox and number
    /// inputs — the live check naming a min above the max, then a fraction in a whole-number
    /// question, beside the min input — a range (step 0 named at the step), a date (a min after
    /// the max named at the min) and a photo question, publishes it, and the editor reads every
    /// setting back; `mi` enforces the bounds, the location and the one form per technician.
    func testEditorDrawsEverySettingFromTheRegistry() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let questions: [[String: Any]] = [
            ["type": "numeric", "id": "flow", "text": "Flow at the outlet (l/min)",
             "inputs": ["integer": "flag", "min": "number", "max": "number"],
             "bad": [
                ["key": "min", "value": "10", "with": ["max": "2"], "at": "min", "message": "is greater than max"],
                ["key": "integer", "value": true, "with": ["min": "0.5", "max": "40"], "at": "min", "message": "not a whole number"],
             ],
             "settings": ["integer": true, "min": "1", "max": "40"],
             "published": ["integer": true, "min": 1, "max": 40]],
            ["type": "multipleChoice", "id": "cap", "text": "Outlet cap", "options": ["Present", "Missing"],
             "inputs": ["maxAnswers": "wholeNumber"],
             "settings": ["maxAnswers": "1"], "published": ["Max-answers": 1]],
            ["type": "range", "id": "rating", "text": "Flow rating (1 to 5)",
             "inputs": ["start": "number", "end": "number", "step": "number"],
             "bad": [["key": "step", "value": "0", "with": ["start": "1", "end": "5"], "at": "step", "message": "must be greater than 0"]],
             "settings": ["start": "1", "end": "5", "step": "1"], "published": ["start": 1, "end": 5, "step": 1]],
            ["type": "date", "id": "serviced", "text": "Date of the last service",
             "inputs": ["min": "date", "max": "date"],
             "bad": [["key": "min", "value": "2026-12-01", "with": ["max": "2026-11-01"], "at": "min", "message": "is after max"]],
             "settings": ["min": "2020-01-01", "max": "2026-12-31"], "published": ["min": "2020-01-01", "max": "2026-12-31"]],
            ["type": "photo", "id": "outlet", "text": "Photo of the outlet",
             "inputs": ["maxFiles": "wholeNumber"], "settings": ["maxFiles": "2"], "published": ["maxFiles": 2]],
        ]
        let facts: [String: Any] = [
            "templateId": "hydrant-flow", "templateTitle": "Hydrant flow test",
            "templateFlags": ["oncePerUser", "captureLocation"],
            "fionaPassword": TestDirectory.password(for: "fiona"), "questions": questions,
        ]
        let run = try browse(sandbox, mode: ["--generic-editor"], facts: facts, screenshots: "generic-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 4 steps passed"), "not every step ran and passed (above)")
        guard run.status == 0 else { return }

        let refresh = try sandbox.run(["templates", "--refresh"], as: "ana")
        XCTAssertEqual(refresh.status, 0, refresh.output)
        // captureLocation: the form records where it was started.
        let started = try sandbox.run(["new", "hydrant-flow", "--name", "hydrant-1", "--location", "19.4326 -99.1332"], as: "ana")
        XCTAssertEqual(started.status, 0, started.output)
        let answers: [(String, String, Int32)] = [
            ("flow", "0", 65), ("flow", "2.5", 65), ("flow", "41", 65), ("flow", "12", 0),
            ("rating", "6", 65), ("rating", "3", 0),
            ("serviced", "2019-05-01", 65), ("serviced", "2026-02-30", 65), ("serviced", "2025-06-01", 0),
        ]
        for (question, value, status) in answers {
            let answered = try sandbox.run(["answer", "hydrant-1", question, value], as: "ana")
            XCTAssertEqual(answered.status, status, "\(question) \(value): \(answered.output)")
        }
        let form = try sandbox.formJSON("hydrant-1", user: "ana")
        XCTAssertNotNil(form["startLocation"], "a captureLocation template's form records where it was started: \(form.keys.sorted())")
        let second = try sandbox.run(["new", "hydrant-flow", "--name", "hydrant-2", "--location", "19.4326 -99.1332"], as: "ana")
        XCTAssertNotEqual(second.status, 0, "one form per technician: \(second.output)")
        withExtendedLifetime(server) {}
    }

    /// A template whose options carry the attributes its choice filter reads.
    static let sitePick = #"""
        {"id": "site-pick", "title": "Site pick", "version": 1, "questions": [
          {"id": "region", "type": "multipleChoice", "text": "Region", "options": ["north", "south"]},
          {"id": "site", "type": "multipleChoice", "text": "Site", "choiceFilter": "region = ${region}",
           "options": [{"name": "n1", "label": "North 1", "region": "north"},
                       {"name": "s1", "label": "South 1", "region": "south"}]}
        ]}
        """#

    /// Form logic through the editor: every logic key is drawn from MIKit's
    /// `QuestionLogic.editorFields` (an expression as text, `required` as a condition, a choice
    /// filter on multiple choice, a calculation on a calculate question); a bad constraint is
    /// named with its position beside its input by the live check; the published template
    /// carries the logic, and the real `mi fill` (piped) skips the question that is not relevant
    /// and refuses an answer that breaks the constraint.
    func testEditorEditsFormLogicAndMiFillFollowsIt() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        try Data(Self.sitePick.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/site-pick.json"))
        let server = try RunningServer(sandbox)
        let logicInputs: [String: String] = ["relevant": "expression", "constraint": "expression", "constraintMessage": "text",
                                             "required": "condition", "requiredMessage": "text", "calculation": "expression",
                                             "default": "text", "readOnly": "flag"]
        let questions: [[String: Any]] = [
            ["type": "multipleChoice", "id": "running", "text": "Is the pump running?", "options": ["yes", "no"],
             "inputs": logicInputs.merging(["choiceFilter": "expression"]) { $1 },
             "settings": ["required": "true"], "published": ["required": true]],
            ["type": "numeric", "id": "pressure", "text": "Outlet pressure (bar)", "inputs": logicInputs, "previewed": false,
             "bad": [["key": "constraint", "value": ". <= 16)", "at": "constraint", "message": "at position 7"]],
             "settings": ["relevant": "${running} = 'yes'", "constraint": ". <= 16", "constraintMessage": "At most 16 bar"],
             "published": ["relevant": "${running} = 'yes'", "constraint": ". <= 16", "constraintMessage": "At most 16 bar"]],
            ["type": "calculate", "id": "doubled", "text": "Twice the pressure", "inputs": ["calculation": "expression"],
             "previewed": false, "settings": ["calculation": "${pressure} * 2"], "published": ["calculation": "${pressure} * 2"]],
            ["type": "shortAnswer", "id": "remarks", "text": "Remarks", "inputs": logicInputs,
             "settings": [String: Any](), "published": [String: Any]()],
        ]
        let facts: [String: Any] = [
            "templateId": "pump-logic", "templateTitle": "Pump with logic", "templateFlags": [String](),
            "fionaPassword": TestDirectory.password(for: "fiona"), "questions": questions,
            "republish": ["id": "site-pick", "title": "Site pick, retitled"],
        ]
        let run = try browse(sandbox, mode: ["--generic-editor"], facts: facts, screenshots: "logic-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 5 steps passed"), "not every step ran and passed (above)")
        guard run.status == 0 else { return }
        // The options' attributes a choice filter reads have no input; edited and published
        // again, the template keeps them and its filter.
        var republished: [[String: Any]] = []
        let files = FileManager.default.enumerator(at: sandbox.root.appendingPathComponent("server-templates"), includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "json", let data = try? Data(contentsOf: file),
                  String(decoding: data, as: UTF8.self).contains("Site pick, retitled"),
                  let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
            republished.append(object)
        }
        XCTAssertEqual(republished.count, 1, "the second version of site-pick among the server's templates")
        let site = (republished.first?["questions"] as? [[String: Any]])?.last
        XCTAssertEqual(site?["choiceFilter"] as? String, "region = ${region}")
        let options = site?["options"] as? [[String: Any]]
        XCTAssertEqual(options?.map { $0["region"] as? String }, ["north", "south"], "\(String(describing: site))")
        XCTAssertEqual(options?.map { $0["name"] as? String }, ["n1", "s1"])

        XCTAssertEqual(try sandbox.run(["templates", "--refresh"], as: "ana").status, 0)
        // Not running: the pressure is not asked.
        XCTAssertEqual(try sandbox.run(["new", "pump-logic", "--name", "idle"], as: "ana").status, 0)
        let idle = try sandbox.run(["fill", "idle"], as: "ana", stdin: "no\nquiet\n:s\n")
        XCTAssertEqual(idle.status, 0, idle.output)
        let idleAsked = String(idle.stdout.components(separatedBy: "questions done").first ?? "")
        XCTAssertTrue(idleAsked.contains("Is the pump running?") && idleAsked.contains("Remarks"), idleAsked)
        XCTAssertFalse(idleAsked.contains("Outlet pressure"), "not relevant, not asked: \(idleAsked)")
        // Running: 20 bar breaks the constraint — piped, fill stops (exit 65) with its message and
        // nothing of it is stored; 12 is taken and the calculation follows it.
        XCTAssertEqual(try sandbox.run(["new", "pump-logic", "--name", "busy"], as: "ana").status, 0)
        let busy = try sandbox.run(["fill", "busy"], as: "ana", stdin: "yes\n20\n")
        XCTAssertEqual(busy.status, 65, busy.output)
        XCTAssertTrue(busy.output.contains("At most 16 bar"), busy.output)
        let refused = try XCTUnwrap(try sandbox.formJSON("busy", user: "ana")["answers"] as? [String: Any])
        XCTAssertNil(refused["pressure"], "a value breaking the constraint is not stored: \(refused)")
        XCTAssertNotNil(refused["running"], "the answer before it is kept: \(refused)")
        XCTAssertEqual(try sandbox.run(["answer", "busy", "pressure", "12"], as: "ana").status, 0)
        let answers = try XCTUnwrap(try sandbox.formJSON("busy", user: "ana")["answers"] as? [String: Any])
        XCTAssertEqual((answers["pressure"] as? [String: Any])?["value"] as? Double, 12)
        XCTAssertEqual((answers["doubled"] as? [String: Any])?["value"] as? String, "24")
        withExtendedLifetime(server) {}
    }

    /// Groups and repeats through the editor: fiona builds a pump station — a whole number of
    /// pumps and a leak at the top, a group asked only when there is a leak, and a repeat counted
    /// by the number of pumps holding a current (with a constraint) and a serial — nests a repeat
    /// in the repeat and removes it again (after a confirmation, with its question), moves a
    /// question within the repeat and another out of its group and back in, sees a bad count named live (the repeat and the key, beside
    /// its input) and the preview's headings and conditions, and publishes; opened again,
    /// retitled and published again, the template keeps its structure as JSON. The real `mi`
    /// downloads it and answers the instances by path (answers files): the constraint's message
    /// at the path, an instance past the count refused, the group's question kept until the leak
    /// is withdrawn and then cleared at submission (with its audit event), and the upload
    /// accepted by the server.
    func testEditorBuildsGroupsAndRepeatsThatMiFollows() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let facts: [String: Any] = [
            "templateId": "pump-station", "templateTitle": "Pump station — weekly round",
            "fionaPassword": TestDirectory.password(for: "fiona"),
            "topQuestions": [
                ["type": "numeric", "id": "npumps", "text": "How many pumps are there?", "settings": ["integer": true]],
                ["type": "trueFalse", "id": "leak", "text": "Is there a leak?"],
            ],
            "groups": [
                ["kind": "group", "id": "leakage",
                 "settings": ["text": "Leak details", "relevant": "${leak} = 'true'"],
                 "published": ["text": "Leak details", "relevant": "${leak} = 'true'"],
                 "questions": [["type": "shortAnswer", "id": "where", "text": "Where does it leak?"]]],
                ["kind": "repeat", "id": "pumps", "settings": ["text": "Pump"],
                 "bad": [["key": "repeatCount", "value": "${npumps} +", "fixed": "${npumps}",
                          "listed": "repeat pumps, field \"repeatCount\"", "message": "position"]],
                 "published": ["text": "Pump", "repeatCount": "${npumps}"],
                 "questions": [
                    ["type": "shortAnswer", "id": "serial", "text": "Serial number"],
                    ["type": "numeric", "id": "amps", "text": "Motor current (A)",
                     "settings": ["constraint": ". <= 50", "constraintMessage": "At most 50 A"]],
                 ]],
                ["kind": "repeat", "id": "seals", "in": "pumps", "settings": ["text": "Seal"],
                 "questions": [["type": "shortAnswer", "id": "seal-state", "text": "State of the seal"]]],
            ],
            "moveUp": ["in": "pumps", "id": "amps", "order": ["amps", "serial", "seals"]],
            "moveOut": ["id": "where", "from": "leakage", "top": ["npumps", "leak", "leakage", "where", "pumps"]],
            "nested": ["id": "seals", "in": "pumps", "preview": "  Seal [seals] — repeated as many times as needed"],
            "previewLines": ["Leak details [leakage] — group\n(asked only when ${leak} = 'true')",
                             "Pump [pumps] — repeated for each of ${npumps}", "[amps] — number"],
            "published": ["npumps", "leak", ["leakage", "group", ["where"]], ["pumps", "repeat", ["amps", "serial"]]],
        ]
        let run = try browse(sandbox, mode: ["--group-editor"], facts: facts, screenshots: "groups-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 6 steps passed"), "not every step ran and passed (above)")
        guard run.status == 0 else { return }

        XCTAssertEqual(try sandbox.run(["templates", "--refresh"], as: "ana").status, 0)
        XCTAssertEqual(try sandbox.run(["new", "pump-station", "--name", "station-1"], as: "ana").status, 0)
        for (question, value) in [("npumps", "2"), ("leak", "yes"), ("where", "gland")] {
            let answered = try sandbox.run(["answer", "station-1", question, value], as: "ana")
            XCTAssertEqual(answered.status, 0, "\(question) \(value): \(answered.output)")
        }
        // Answers in the repeat's instances by path, through answers files (their keys may be paths).
        var files = 0
        func answer(_ answers: [String: Any]) throws -> RunResult {
            files += 1
            let file = sandbox.root.appendingPathComponent("station-answers-\(files).json")
            try JSONSerialization.data(withJSONObject: answers).write(to: file)
            return try sandbox.run(["answer", "station-1", "--file", file.path], as: "ana")
        }
        let tooHigh = try answer(["pumps[1]/amps": 60])
        XCTAssertEqual(tooHigh.status, 65, tooHigh.output)
        XCTAssertTrue(tooHigh.stderr.contains("At most 50 A") && tooHigh.stderr.contains("pumps[1]/amps"),
                      "the constraint's message from the editor, at the path: \(tooHigh.output)")
        let third = try answer(["pumps[3]/amps": 12])
        XCTAssertNotEqual(third.status, 0, "a third pump where the count is 2: \(third.output)")
        let pumps = try answer(["pumps[1]/amps": 12, "pumps[2]/amps": 14.5, "pumps[1]/serial": "P-100", "pumps[2]/serial": "P-200"])
        XCTAssertEqual(pumps.status, 0, pumps.output)
        let noLeak = try sandbox.run(["answer", "station-1", "leak", "no"], as: "ana")
        XCTAssertEqual(noLeak.status, 0, noLeak.output)
        let review = try sandbox.run(["review", "station-1", "--json"], as: "ana")
        XCTAssertEqual(review.status, 0, review.output)
        let reviewed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any])
        // `--json` nests: a repeat holds its instances, each its questions.
        func find(_ id: String, in items: [[String: Any]]) -> [String: Any]? {
            for item in items {
                if item["id"] as? String == id, item["instances"] == nil { return item }
                let inner = (item["questions"] as? [[String: Any]] ?? []) + (item["instances"] as? [[String: Any]] ?? [])
                if let found = find(id, in: inner) { return found }
            }
            return nil
        }
        let amps = find("amps", in: reviewed["questions"] as? [[String: Any]] ?? [])
        XCTAssertEqual(amps?["constraintMessage"] as? String, "At most 50 A", "the logic typed in the editor: \(review.stdout)")
        let before = try XCTUnwrap(try sandbox.formJSON("station-1", user: "ana")["answers"] as? [String: Any])
        XCTAssertEqual((before["where"] as? [String: Any])?["value"] as? String, "gland", "kept until submission: \(before)")
        let submitted = try sandbox.run(["submit", "station-1"], as: "ana")
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let completed = try sandbox.formJSON("station-1", in: "CompletedMIs", user: "ana")
        let answers = try XCTUnwrap(completed["answers"] as? [String: Any])
        XCTAssertEqual((answers["pumps[2]/amps"] as? [String: Any])?["value"] as? Double, 14.5, "\(answers)")
        XCTAssertEqual((answers["pumps[1]/serial"] as? [String: Any])?["value"] as? String, "P-100", "\(answers)")
        XCTAssertNil((answers["where"] as? [String: Any])?["value"], "not relevant: cleared at submission: \(answers)")
        let audit = completed["audit"] as? [[String: Any]] ?? []
        let cleared = audit.first { $0["action"] as? String == "cleared" }
        XCTAssertEqual(cleared?["questions"] as? [String], ["where"], "the audit trail says what was cleared: \(audit)")
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertEqual(sandbox.allFormFiles(), [], "the form was uploaded: \(upload.output)")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data/submissions").path)) ?? []
        XCTAssertFalse(stored.isEmpty, "the server stored the submission")
        withExtendedLifetime(server) {}
    }

    /// 12 forms made by `mi simulate` (`sim-3-1` … `sim-3-12`) and one real one, on a server that
    /// accepts simulated forms: one switch hides the simulated ones in the listing and the
    /// statistics, names sort naturally (`sim-3-2` before `sim-3-12`), and the pages of 5 say
    /// "1–5 of 13" … "11–13 of 13", with Previous as well as Next.
    func testSimulatedFormsHideWithOneSwitchAndNamesSortNaturally() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let text = try String(contentsOf: sandbox.config, encoding: .utf8)
            .replacingOccurrences(of: "<key>DataDirectory</key>", with: "<key>AcceptSimulated</key><true/><key>DataDirectory</key>")
        try Data(text.utf8).write(to: sandbox.config)
        let server = try RunningServer(sandbox)
        let real = try ServerTests.completedForm(sandbox, name: "real-1")
        let made = try sandbox.run(["simulate", "extinguisher-check", "--count", "12", "--seed", "3", "--submit"])
        XCTAssertEqual(made.status, 0, made.output)
        try sandbox.ensureLoggedIn("fiona")
        let names = [real] + (1...12).map { "sim-3-\($0)" }
        for name in names {
            let upload = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
            XCTAssertEqual(upload.status, 0, upload.output)
        }
        let facts: [String: Any] = [
            "fionaPassword": TestDirectory.password(for: "fiona"), "simulatedCount": 12, "realCount": 1,
            "simulatedTemplate": "extinguisher-check", "naturalOrder": names,
        ]
        let run = try browse(sandbox, mode: ["--simulated"], facts: facts, screenshots: "simulated-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 3 steps passed"), "not every step ran and passed (above)")
        withExtendedLifetime(server) {}
    }

    /// fiona opens ana's extinguisher check in chromium, ticks two questions with a note each,
    /// writes an overall note and sends the form back; the panel shows both flags, the API's
    /// `GET /api/v1/returned` lists the form with them, and ana sees them without the controls.
    func testAForemanFlagsTwoQuestionsAndSendsTheFormBack() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let name = try ServerTests.completedForm(sandbox, name: "post-12")
        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs", user: "ana")["id"] as? String).lowercased()
        try sandbox.ensureLoggedIn("fiona")
        let upload = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let facts: [String: Any] = [
            "fionaPassword": TestDirectory.password(for: "fiona"), "technician": "ana",
            "technicianPassword": TestDirectory.password(for: "ana"), "formId": id,
            "flags": [["weight", "the scale reads 6.2 kg, not 4"], ["seal", "photo the seal, not the hose"]],
            "sendBackNote": "Two readings to redo before Friday",
        ]
        let run = try browse(sandbox, mode: ["--send-back"], facts: facts, screenshots: "sendback-")
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 4 steps passed"), "not every step ran and passed (above)")

        // ana syncs, fixes the weight, replies about the seal and submits; fiona uploads it again:
        // version 2, whose changes the office shows.
        let synced = try sandbox.run(["sync"], as: "ana")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertEqual(try sandbox.run(["answer", name, "weight", "6.2"], as: "ana").status, 0)
        let reply = "the seal is behind the hose; photographed as well as it can be"
        XCTAssertEqual(try sandbox.run(["answer", name, "seal", "--reply", reply], as: "ana").status, 0)
        let submit = try sandbox.run(["submit", name], as: "ana")
        XCTAssertEqual(submit.status, 0, submit.output)
        let corrected = try sandbox.run(["upload", "ana/\(name)"], as: "fiona")
        XCTAssertEqual(corrected.status, 0, corrected.output)
        var versionFacts = facts
        versionFacts["changedQuestion"] = "weight"
        versionFacts["before"] = "6"
        versionFacts["after"] = "6.2"
        versionFacts["repliedQuestion"] = "seal"
        versionFacts["reply"] = reply
        // A fresh browser: ana was the last to sign in.
        try FileManager.default.removeItem(at: sandbox.root.appendingPathComponent("chromium-profile"))
        let versions = try browse(sandbox, mode: ["--versions"], facts: versionFacts, screenshots: "versions-")
        let afterLog = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(versions.status, 0, "the steps:\n\(versions.output)\nmi-server's log (last 3000):\n\(afterLog.suffix(3000))")
        XCTAssertTrue(versions.stdout.contains("all 3 steps passed"), "not every step ran and passed (above)")
        withExtendedLifetime(server) {}
    }

    /// Runs the browser script in `mode` over `facts`, its screenshots named `screenshots`… (those
    /// of an earlier run removed first), in a fresh chromium profile.
    func browse(_ sandbox: Sandbox, mode: [String], facts: [String: Any], screenshots prefix: String) throws -> RunResult {
        try Self.browse(sandbox, mode: mode, facts: facts, screenshots: prefix)
    }

    /// The same, for other test classes (LocationTests).
    static func browse(_ sandbox: Sandbox, mode: [String], facts: [String: Any], screenshots prefix: String) throws -> RunResult {
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        for old in try FileManager.default.contentsOfDirectory(atPath: Self.screenshots.path) where old.hasPrefix(prefix) {
            try FileManager.default.removeItem(at: Self.screenshots.appendingPathComponent(old))
        }
        let script = try XCTUnwrap(Bundle.module.url(forResource: "mi_office_browser", withExtension: "py"),
                                   "mi_office_browser.py is not among the test resources")
        let profile = sandbox.root.appendingPathComponent("chromium-profile")
        let factsJSON = String(decoding: try JSONSerialization.data(withJSONObject: facts, options: [.sortedKeys]), as: UTF8.self)
        return try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/timeout"),
                                   ["--kill-after=10", "400", "python3", script.path,
                                    "--base", "http://127.0.0.1:\(sandbox.server.port)",
                                    "--profile", profile.path, "--screenshots", Self.screenshots.path,
                                    "--facts", factsJSON] + mode,
                                   // The python3 on PATH, as scripts/setup.sh checks its modules; chromium's home is the sandbox.
                                   environment: ProcessInfo.processInfo.environment.merging(["HOME": sandbox.root.path]) { $1 },
                                   in: sandbox.root)
    }

    /// ana's pump inspection with a comment holding the word, the photo, the video, the audio and
    /// a hostile answer; an extinguisher check of hers; bob's pump inspection with a photo;
    /// fiona's comment; all uploaded with `mi upload --all`. Returns what the script checks.
    func prepareSubmissions(_ sandbox: Sandbox) throws -> [String: Any] {
        for user in ["ana", "bob"] {
            let templates = try sandbox.run(["templates"], as: user)
            XCTAssertEqual(templates.status, 0, templates.output)
        }
        let media = sandbox.repository.appendingPathComponent("Samples/media")
        let notes = Self.hostile.joined(separator: " ")
        let pump = try pumpAnswers(guardComment: "Verdigris on the guard bolts, cleaned and greased", notes: notes)
        try fill(sandbox, as: "ana", template: "pump-inspection", name: "pump-7", answers: pump, attachments: [
            ("leak_photo", "seal.png"), ("guard", "pump-running.webm"), ("noise", "pump-noise.ogg"),
        ].map { ($0.0, media.appendingPathComponent($0.1).path) })
        try fill(sandbox, as: "ana", template: "extinguisher-check", name: "post-4",
                 answers: ForemanTests.extinguisherAnswers, attachments: [])
        try fill(sandbox, as: "bob", template: "pump-inspection", name: "pump-9",
                 answers: try pumpAnswers(guardComment: "Guard refitted", notes: "All good, calibration " + Self.longWord),
                 attachments: [("leak_photo", media.appendingPathComponent("gauge.jpg").path)])
        let anaID = try XCTUnwrap(try sandbox.formJSON("pump-7", in: "CompletedMIs", user: "ana")["id"] as? String).lowercased()
        let bobID = try XCTUnwrap(try sandbox.formJSON("pump-9", in: "CompletedMIs", user: "bob")["id"] as? String).lowercased()

        let comment = try sandbox.run(["comment", "ana/pump-7", Self.foremanComment], as: "fiona")
        XCTAssertEqual(comment.status, 0, comment.output)
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertEqual(sandbox.allFormFiles(), [], "every form was uploaded: \(upload.output)")
        return [
            "anaId": anaID, "bobId": bobID, "form": "pump-7", "bobForm": "pump-9",
            "bobMedia": "Qid2(1).jpg",
            "templateTitle": "Centrifugal pump — monthly inspection", "technicianName": "Ana Pérez",
            "questionIds": ["guard", "leaks", "leak_photo", "noise", "checks", "pressure", "hours", "bearings", "notes"],
            // A photo question is counted by its files, with no chart.
            "unchartedIds": ["leak_photo"],
            "word": Self.word, "foremanComment": Self.foremanComment, "hostile": Self.hostile,
            "noValueCells": 1, "total": 3, "anaCount": 2, "bobCount": 1, "extinguisherCount": 1,
            "anaPassword": TestDirectory.password(for: "ana"), "fionaPassword": TestDirectory.password(for: "fiona"),
            // The statistics page of the pump inspections: ana's and bob's, both heard "Humming".
            "statsTemplate": "pump-inspection", "statsForms": 2, "anaPumpForms": 1,
            "optionCounts": ["guard": 2, "leaks": 5, "noise": 4, "checks": 5], "numericIds": ["pressure", "hours"],
        ]
    }

    /// Answers to every pump-inspection question; the motor's vibration cell takes no value.
    func pumpAnswers(guardComment: String, notes: String) throws -> String {
        let answers: [String: Any] = [
            "guard": ["value": true, "comment": guardComment],
            "leaks": ["Mechanical seal"], "noise": ["Humming"], "checks": ["Alignment", "Vibration"],
            "pressure": 12.5, "hours": 1200,
            "bearings": [["60", "2.1"], ["58", "1.9"], ["65", NSNull()]],
            "notes": notes,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: answers), as: UTF8.self)
    }

    /// `mi new`, `mi answer --file`, `mi attach` and `mi submit` as `user`.
    func fill(_ sandbox: Sandbox, as user: String, template: String, name: String, answers: String,
              attachments: [(question: String, file: String)]) throws {
        _ = try sandbox.newForm(template, as: user, name: name)
        let file = sandbox.root.appendingPathComponent("answers-\(user)-\(name).json")
        try Data(answers.utf8).write(to: file)
        let answered = try sandbox.run(["answer", name, "--file", file.path], as: user)
        XCTAssertEqual(answered.status, 0, answered.output)
        for attachment in attachments {
            let attached = try sandbox.run(["attach", name, attachment.question, attachment.file], as: user)
            XCTAssertEqual(attached.status, 0, attached.output)
        }
        let submitted = try sandbox.run(["submit", name], as: user)
        XCTAssertEqual(submitted.status, 0, submitted.output)
    }

    /// A PNG's width and height, from its IHDR chunk.
    static func pngSize(_ file: URL) throws -> (width: Int, height: Int) {
        let data = try Data(contentsOf: file)
        guard data.count >= 24, data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw TestDirectoryError("\(file.lastPathComponent) is not a PNG")
        }
        func integer(at offset: Int) -> Int {
            data[data.startIndex + offset..<data.startIndex + offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return (integer(at: 16), integer(at: 20))
    }
}
