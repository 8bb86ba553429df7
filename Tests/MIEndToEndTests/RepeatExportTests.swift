import Foundation
import XCTest

/// Exports and statistics of a template with repeats through the real `mi` and mi-server: forms
/// answered by path with `mi answer --file`, submitted and exported with `mi export`, uploaded
/// and downloaded from the server's export with curl; the zip's CSVs read back by Python's
/// zipfile and csv and joined by `KEY`/`PARENT_KEY`; `mi stats --json` counted per instance.
final class RepeatExportEndToEndTests: XCTestCase {
    static let template = #"""
        {"id": "plot", "title": "Forest plot", "version": 1, "questions": [
          {"id": "site", "type": "shortAnswer", "text": "Site"},
          {"id": "ntrees", "type": "numeric", "text": "How many trees?"},
          {"id": "trees", "type": "repeat", "text": "Tree", "repeatCount": "${ntrees}", "questions": [
            {"id": "dbh", "type": "numeric", "text": "Diameter (cm)"},
            {"id": "damage", "type": "group", "text": "Damage", "relevant": "${dbh} > 50", "questions": [
              {"id": "harm", "type": "shortAnswer", "text": "What damage?"}
            ]},
            {"id": "stems", "type": "repeat", "text": "Stem", "questions": [
              {"id": "cbh", "type": "numeric", "text": "Circumference (cm)"}
            ]}
          ]}
        ]}
        """#

    /// Each form: its first answers (the count), then the instances' by path.
    static let forms: [(name: String, first: String, rest: String)] = [
        ("a", #"{"site": "North, \"upper\"", "ntrees": 2}"#,
         #"{"trees[1]/dbh": 40, "trees[1]/stems[1]/cbh": 10, "trees[1]/stems[2]/cbh": 12, "trees[2]/dbh": 60, "trees[2]/harm": "bark"}"#),
        ("b", #"{"site": "South", "ntrees": 3}"#,
         #"{"trees[1]/dbh": 30, "trees[2]/dbh": 55, "trees[2]/harm": "fire", "trees[2]/stems[1]/cbh": 20, "trees[3]/dbh": 45}"#),
    ]

    /// Reads the zip with zipfile and csv and prints, as JSON, its entries and each stem joined
    /// to its tree and form (`site|dbh|cbh`) and each tree to its form (`site|dbh`).
    static let joiner = #"""
        import csv, io, json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        def rows(name):
            return list(csv.DictReader(io.StringIO(z.read(name).decode("utf-8-sig"), newline="")))
        main, trees, stems = rows("plot.csv"), rows("plot-trees.csv"), rows("plot-stems.csv")
        forms = {r["KEY"]: r for r in main}
        tree_by_key = {r["KEY"]: r for r in trees}
        print(json.dumps({
            "entries": z.namelist(),
            "mainHeader": list(main[0].keys()),
            "treeKeys": [r["KEY"] for r in trees],
            "stemKeys": [r["KEY"] for r in stems],
            "trees": [forms[t["PARENT_KEY"]]["site"] + "|" + t["dbh"] + "|" + t["harm"] for t in trees],
            "stems": [forms[tree_by_key[s["PARENT_KEY"]]["PARENT_KEY"]]["site"] + "|" + tree_by_key[s["PARENT_KEY"]]["dbh"] + "|" + s["cbh"] for s in stems],
        }))
        """#

    func joined(_ sandbox: Sandbox, _ zip: URL) throws -> [String: Any] {
        let run = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.joiner, zip.path])
        XCTAssertEqual(run.status, 0, run.output)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.output)
    }

    func testRepeatsExportInLongFormatFromMiAndTheServerAndCountPerInstance() throws {
        let directory = try TestDirectory()
        defer { directory.stop() }
        let sandbox = try Sandbox(directory: directory)
        try ServerTests.prepare(sandbox)
        try Data(Self.template.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/plot.json"))
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        var ids: [String] = []
        for form in Self.forms {
            _ = try sandbox.newForm("plot", name: form.name)
            for (index, answers) in [form.first, form.rest].enumerated() {
                let file = sandbox.root.appendingPathComponent("answers-\(form.name)-\(index).json")
                try Data(answers.utf8).write(to: file)
                let answered = try sandbox.run(["answer", form.name, "--file", file.path])
                XCTAssertEqual(answered.status, 0, answered.output)
            }
            let submitted = try sandbox.run(["submit", form.name])
            XCTAssertEqual(submitted.status, 0, submitted.output)
            ids.append(try XCTUnwrap(try sandbox.formJSON(form.name, in: "CompletedMIs")["id"] as? String).lowercased())
        }
        let expectedTrees = ["North, \"upper\"|40|", "North, \"upper\"|60|bark", "South|30|", "South|55|fire", "South|45|"]
        let expectedStems = ["North, \"upper\"|40|10", "North, \"upper\"|40|12", "South|55|20"]

        // mi export: the zip read back by Python and joined.
        let local = sandbox.root.appendingPathComponent("plot.zip")
        let exported = try sandbox.run(["export", "plot", "--output", local.path])
        XCTAssertEqual(exported.status, 0, exported.output)
        let mine = try joined(sandbox, local)
        XCTAssertEqual(mine["entries"] as? [String], ["plot.csv", "plot-trees.csv", "plot-stems.csv"])
        XCTAssertEqual(mine["trees"] as? [String], expectedTrees)
        XCTAssertEqual(mine["stems"] as? [String], expectedStems)
        XCTAssertEqual(mine["treeKeys"] as? [String], ["\(ids[0])/trees[1]", "\(ids[0])/trees[2]", "\(ids[1])/trees[1]", "\(ids[1])/trees[2]", "\(ids[1])/trees[3]"])
        XCTAssertEqual(mine["stemKeys"] as? [String], ["\(ids[0])/trees[1]/stems[1]", "\(ids[0])/trees[1]/stems[2]", "\(ids[1])/trees[2]/stems[1]"])
        XCTAssertFalse((mine["mainHeader"] as? [String] ?? []).contains("dbh"))

        // --format csv is refused naming the zip; nothing is written.
        let csv = sandbox.root.appendingPathComponent("plot.csv")
        let refused = try sandbox.run(["export", "plot", "--output", csv.path, "--format", "csv"])
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(refused.stderr.contains("the CSV comes in the zip"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: csv.path))

        // mi stats: per instance, instances per form, not relevant is not missing.
        let stats = try sandbox.run(["stats", "plot", "--json"])
        XCTAssertEqual(stats.status, 0, stats.output)
        let figures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let questions = try XCTUnwrap(figures["questions"] as? [[String: Any]])
        let dbh = try XCTUnwrap(questions.first { $0["id"] as? String == "dbh" })
        XCTAssertEqual(dbh["instances"] as? Int, 5)
        XCTAssertEqual(dbh["repeat"] as? String, "trees")
        let numbers = try XCTUnwrap(dbh["numbers"] as? [String: Any])
        XCTAssertEqual(numbers["count"] as? Int, 5)
        XCTAssertEqual(numbers["mean"] as? Double, 46)
        XCTAssertEqual(numbers["median"] as? Double, 45)
        let harm = try XCTUnwrap(questions.first { $0["id"] as? String == "harm" })
        XCTAssertEqual([harm["answered"], harm["unanswered"], harm["notRelevant"]].map { $0 as? Int }, [2, 0, 3])
        let repeats = try XCTUnwrap(figures["repeats"] as? [[String: Any]])
        XCTAssertEqual(repeats.map { $0["id"] as? String }, ["trees", "stems"])
        XCTAssertEqual(repeats.map { $0["instances"] as? Int }, [5, 3])
        XCTAssertEqual(repeats.map { $0["median"] as? Double }, [2.5, 1.5])
        XCTAssertEqual(repeats.map { $0["maximum"] as? Int }, [3, 2])
        let text = try sandbox.run(["stats", "plot"])
        XCTAssertTrue(text.stdout.contains("trees (Tree): 5 instances in 2 forms · per form min 2 · median 2.5 · max 3"), text.stdout)
        XCTAssertTrue(text.stdout.contains("in repeat trees: per instance, 5 instances"), text.stdout)
        XCTAssertTrue(text.stdout.contains("not relevant 3"), text.stdout)

        // The server: uploaded, exported with curl, the same joins.
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let token = try sandbox.apiToken("fiona")
        let downloaded = sandbox.root.appendingPathComponent("server.zip")
        let fetched = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                          ["-sS", "-o", downloaded.path, "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
                                           "http://127.0.0.1:\(sandbox.server.port)/api/v1/templates/plot/export.zip"])
        XCTAssertEqual(fetched.stdout, "200", fetched.output)
        let theirs = try joined(sandbox, downloaded)
        XCTAssertEqual(theirs["entries"] as? [String], ["plot.csv", "plot-trees.csv", "plot-stems.csv"])
        XCTAssertEqual(theirs["trees"] as? [String], expectedTrees)
        XCTAssertEqual(theirs["stems"] as? [String], expectedStems)
        XCTAssertEqual(theirs["stemKeys"] as? [String], mine["stemKeys"] as? [String])
        let plain = try sandbox.curl(["-H", "Authorization: Bearer \(token)"], path: "/api/v1/templates/plot/export.zip?format=csv")
        XCTAssertTrue(plain.hasPrefix("HTTP/1.1 400"), plain)
        XCTAssertTrue(plain.contains("the CSV comes in the zip"), plain)
        // JSON Lines from the server: instances nested.
        let lines = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                        ["-sS", "-H", "Authorization: Bearer \(token)",
                                         "http://127.0.0.1:\(sandbox.server.port)/api/v1/templates/plot/export.zip?format=jsonl"])
        let first = try XCTUnwrap(lines.stdout.split(separator: "\n").first)
        let answers = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])?["answers"] as? [String: Any])
        let trees = try XCTUnwrap(answers["trees"] as? [[String: Any]], "\(answers)")
        XCTAssertEqual(trees.count, 2)
        XCTAssertEqual((trees[0]["stems"] as? [[String: Any]])?.count, 2)
        withExtendedLifetime(server) {}
    }
}
