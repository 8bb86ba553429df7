import Foundation
import XCTest

/// `mi stats` end to end: forms filled and submitted with the real `mi`, the figures of
/// `mi stats --json` checked against Python's `statistics` module and `Counter` over the same
/// answers, the filters and group-by, the text charts, and the errors' exit statuses.
final class StatsTests: XCTestCase {
    /// Answers of the pump inspection, one form each: (technician, answers file). A form with a
    /// leak answers its photo with a comment (an answers file cannot carry the photo itself).
    static let forms: [(user: String, answers: String)] = [
        ("ana", #"{"guard": true, "leaks": ["Mechanical seal", "Suction flange"], "leak_photo": {"comment": "photo on the site tablet"}, "noise": ["Normal"], "checks": ["Alignment", "Vibration"], "pressure": 4.5, "hours": 1200, "bearings": [["61.5", "2.1"], ["58", "1.9"], ["70", null]], "notes": "all good"}"#),
        ("ana", #"{"guard": false, "leaks": ["None"], "noise": ["Humming"], "checks": ["Lubrication"], "pressure": 6.25, "hours": 1350, "bearings": [["55", "2.4"], ["57.5", "ok"], ["66", null]], "notes": " Oil topped up "}"#),
        ("ana", #"{"guard": true, "leaks": ["Casing drain"], "leak_photo": {"comment": "photo on the site tablet"}, "noise": ["Normal"], "checks": ["Seal flush", "Motor current"], "pressure": {"comment": "gauge broken"}, "hours": 980, "bearings": [["49", "3"], ["50", "2.2"], ["60", null]], "notes": "Oil topped up"}"#),
        ("ana", #"{"guard": true, "leaks": ["Mechanical seal"], "leak_photo": {"comment": "photo on the site tablet"}, "noise": ["Grinding"], "checks": ["Alignment"], "pressure": 11.75, "hours": 2210, "bearings": [["80", "6.5"], ["77", "5.9"], ["85", null]], "notes": "Ñuñoa depot"}"#),
        ("ana", #"{"guard": true, "leaks": ["None"], "noise": {"comment": "too loud to tell"}, "checks": ["Vibration"], "pressure": 7, "hours": 1200, "bearings": [["60", "2"], ["59", "2"], ["64", null]], "notes": "all good"}"#),
        ("bob", #"{"guard": {"comment": "no guard fitted"}, "leaks": ["Suction flange", "Discharge flange", "Casing drain"], "leak_photo": {"comment": "photo on the site tablet"}, "noise": ["Cavitation (gravel noise)"], "checks": ["Alignment", "Lubrication"], "pressure": 3.1, "hours": 15020, "bearings": [["90", "7.1"], ["88", "6.8"], ["95", null]], "notes": "noisy bearing"}"#),
        ("bob", #"{"guard": true, "leaks": ["None"], "noise": ["Normal"], "checks": ["Motor current"], "pressure": 5.5, "hours": 400, "bearings": [["45", "1.2"], ["44", "1.1"], ["52", null]], "notes": "all good"}"#),
        ("bob", #"{"guard": false, "leaks": ["Mechanical seal"], "leak_photo": {"comment": "photo on the site tablet"}, "noise": ["Humming"], "checks": ["Seal flush"], "pressure": 9.8, "hours": 7777, "bearings": [["66", "3.3"], ["65", "3.4"], ["71", null]], "notes": {"comment": "nothing to add"}}"#),
    ]

    /// Python's own figures over the same answers, compared with mi's JSON: mean, stdev,
    /// quantiles(method="inclusive"), median, Counter; every question, table cell and group.
    static let checker = #"""
    import json, math, statistics, sys
    from collections import Counter
    forms = json.load(open(sys.argv[1], encoding="utf-8"))
    problems = []

    def close(a, b, what):
        if a is None or b is None:
            if a is not b: problems.append(f"{what}: mi {a} python {b}")
        elif not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9):
            problems.append(f"{what}: mi {a} python {b}")

    def same(a, b, what):
        if a != b: problems.append(f"{what}: mi {a!r} python {b!r}")

    def check_numbers(summary, values, what):
        same(summary is not None, bool(values), what + " present")
        if not summary or not values: return
        same(summary["count"], len(values), what + " count")
        close(summary["mean"], statistics.mean(values), what + " mean")
        close(summary.get("standardDeviation"), statistics.stdev(values) if len(values) > 1 else None, what + " stdev")
        q = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3
        close(summary["lowerQuartile"], q[0], what + " Q1")
        close(summary["median"], statistics.median(values), what + " median")
        close(summary["upperQuartile"], q[2], what + " Q3")
        close(summary["minimum"], min(values), what + " min")
        close(summary["maximum"], max(values), what + " max")
        same(sum(b["count"] for b in summary["histogram"]), len(values), what + " histogram total")
        for b in summary["histogram"]:
            inside = [v for v in values if b["lower"] <= v < b["upper"] or (b is summary["histogram"][-1] and v == b["upper"])]
            same(b["count"], len(inside), what + f" bin {b['lower']}-{b['upper']}")

    def check(result, chosen, label):
        same(result["forms"], len(chosen), label + " forms")
        by_id = {q["id"]: q for q in result["questions"]}
        for qid in ["guard", "leaks", "noise", "checks", "pressure", "hours", "bearings", "notes"]:
            q = by_id[qid]
            given = [f["answers"].get(qid) for f in chosen]
            values = [a["value"] if isinstance(a, dict) and "value" in a else (None if isinstance(a, dict) else a) for a in given]
            answered = [v for v in values if v is not None]
            comments = sum(1 for a, v in zip(given, values) if v is None and isinstance(a, dict) and a.get("comment", "").strip())
            same([q["answered"], q["commentOnly"], q["unanswered"]], [len(answered), comments, len(chosen) - len(answered) - comments], f"{label} {qid} counts")
            if qid in ("guard", "leaks", "noise", "checks"):
                counter = Counter(label_ for v in answered for label_ in ([("true" if v else "false")] if isinstance(v, bool) else v))
                for option in q["options"]:
                    same(option["count"], counter[option["label"]], f"{label} {qid} {option['label']}")
                    close(option["percent"], 100 * counter[option["label"]] / len(answered) if answered else 0, f"{label} {qid} {option['label']} %")
                same(sum(o["count"] for o in q["options"]), sum(counter.values()), f"{label} {qid} nothing lost")
            elif qid in ("pressure", "hours"):
                check_numbers(q.get("numbers"), [float(v) for v in answered], f"{label} {qid}")
            elif qid == "notes":
                counter = Counter(v.strip() for v in answered)
                expected = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
                same([(v["value"], v["count"]) for v in q["values"]], expected, f"{label} notes values")
                same(q["distinctValues"], len(counter), f"{label} notes distinct")
            elif qid == "bearings":
                for cell in q["cells"]:
                    texts = [v[cell["row"]][cell["column"]] for v in answered]
                    texts = [t.strip() for t in texts if t is not None and t.strip()]
                    numeric = all(t.replace(".", "", 1).isdigit() for t in texts)
                    same(cell["answered"], len(texts), f"{label} cell {cell['row']},{cell['column']} answered")
                    if numeric:
                        check_numbers(cell.get("numbers"), [float(t) for t in texts], f"{label} cell {cell['row']},{cell['column']}")
                    else:
                        same([(v["value"], v["count"]) for v in cell["values"]],
                             sorted(Counter(texts).items(), key=lambda kv: (-kv[1], kv[0]))[:10], f"{label} cell values")

    everyone = json.load(open(sys.argv[2]))
    check(everyone, forms, "all")
    ana = json.load(open(sys.argv[3]))
    check(ana, [f for f in forms if f["user"] == "ana"], "ana")
    same(ana["filters"].get("user"), "ana", "ana filter")
    grouped = json.load(open(sys.argv[4]))
    check(grouped, forms, "grouped")
    for group in grouped["groups"]:
        def chose(f):
            a = f["answers"]["leaks"]
            v = a.get("value") if isinstance(a, dict) else a
            return (v is None) if group.get("label") is None else (v is not None and group["label"] in v)
        check(group, [f for f in forms if chose(f)], f"group {group.get('label')}")
    same([g.get("label") for g in grouped["groups"]], ["None", "Mechanical seal", "Suction flange", "Discharge flange", "Casing drain", None], "group labels")
    print("\n".join(problems) if problems else "OK")
    sys.exit(1 if problems else 0)
    """#

    func submit(_ sandbox: Sandbox, user: String, name: String, answers: String) throws {
        let file = sandbox.root.appendingPathComponent("answers-\(name).json")
        try Data(answers.utf8).write(to: file)
        _ = try sandbox.newForm("pump-inspection", as: user, name: name)
        let answered = try sandbox.run(["answer", name, "--file", file.path], as: user)
        XCTAssertEqual(answered.status, 0, answered.output)
        let submitted = try sandbox.run(["submit", name], as: user)
        XCTAssertEqual(submitted.status, 0, submitted.output)
    }

    func testFiguresMatchPythonsStatisticsWithFiltersAndGroupBy() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "ana")
        try sandbox.importSamples(as: "fiona")
        for (index, form) in Self.forms.enumerated() {
            try submit(sandbox, user: form.user, name: "pump-\(index)", answers: form.answers)
        }
        // An incomplete form is not counted.
        _ = try sandbox.newForm("pump-inspection", as: "ana", name: "draft")

        var files: [String] = []
        let answers = "[" + Self.forms.map { #"{"user": "\#($0.user)", "answers": \#($0.answers)}"# }.joined(separator: ",") + "]"
        let answersFile = sandbox.root.appendingPathComponent("all-answers.json")
        try Data(answers.utf8).write(to: answersFile)
        files.append(answersFile.path)
        for (name, arguments, user) in [("all", [String](), "fiona"), ("ana", [], "ana"), ("grouped", ["--group-by", "leaks"], "fiona")] {
            let result = try sandbox.run(["stats", "pump-inspection", "--json"] + arguments, as: user)
            XCTAssertEqual(result.status, 0, result.output)
            let file = sandbox.root.appendingPathComponent("stats-\(name).json")
            try Data(result.stdout.utf8).write(to: file)
            files.append(file.path)
        }
        let checked = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.checker] + files)
        XCTAssertEqual(checked.status, 0, checked.output)
        XCTAssertEqual(checked.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "OK", checked.output)

        // The same forms for a foreman with --user, and none outside the dates.
        let bob = try json(try sandbox.run(["stats", "pump-inspection", "--json", "--user", "bob"], as: "fiona"))
        XCTAssertEqual(bob["forms"] as? Int, 3)
        let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        let dated = try json(try sandbox.run(["stats", "pump-inspection", "--json", "--from", today, "--to", today], as: "fiona"))
        XCTAssertEqual(dated["forms"] as? Int, 8)
        XCTAssertEqual((dated["days"] as? [[String: Any]])?.first?["day"] as? String, today)
        XCTAssertEqual((dated["days"] as? [[String: Any]])?.first?["count"] as? Int, 8)
        let later = try json(try sandbox.run(["stats", "pump-inspection", "--json", "--from", "2999-01-01"], as: "fiona"))
        XCTAssertEqual(later["forms"] as? Int, 0)
        let version = try json(try sandbox.run(["stats", "pump-inspection", "--json", "--version", "1"], as: "fiona"))
        XCTAssertEqual(version["forms"] as? Int, 0)

        // Text: charts of # when piped, never an escape; the multi-select note; the width kept.
        let text = try sandbox.run(["stats", "pump-inspection", "--group-by", "noise"], as: "fiona", environment: ["COLUMNS": "72"])
        XCTAssertEqual(text.status, 0, text.output)
        XCTAssertFalse(text.stdout.contains("\u{1B}"), text.stdout)
        XCTAssertFalse(text.stdout.contains("█"), "piped output has ASCII bars: \(text.stdout)")
        XCTAssertTrue(text.stdout.contains("8 completed forms counted"), text.stdout)
        XCTAssertTrue(text.stdout.contains("several answers per form — percentages may sum past 100 %"), text.stdout)
        XCTAssertTrue(text.stdout.contains("n 7 · mean 6.84"), text.stdout)
        XCTAssertTrue(text.stdout.contains("noise: \"Normal\" — 3 forms"), text.stdout)
        XCTAssertTrue(text.stdout.contains("noise: no answer — 1 form"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Forms per day (UTC)"), text.stdout)
        let optionLine = try XCTUnwrap(text.stdout.components(separatedBy: "\n").first { $0.hasPrefix("   Normal ") })
        XCTAssertTrue(optionLine.contains("#") && optionLine.hasSuffix("3  42.9 %"), optionLine)
        for line in text.stdout.components(separatedBy: "\n") {
            XCTAssertLessThanOrEqual(line.count, 72, line)
        }
    }

    /// `mi stats` over 9, 13 and 25 simulated forms: on a 2-core machine these counts cut the
    /// forms into pieces whose last ones started past the end, and `mi stats` died with
    /// "Range requires lowerBound <= upperBound" (exit 132).
    func testStatsOverSimulatedFormsOfEveryAwkwardCountExitsZero() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        var total = 0
        for (seed, count) in [(1, 9), (2, 4), (3, 12)] {
            let made = try sandbox.run(["simulate", "extinguisher-check", "--count", String(count), "--seed", String(seed), "--submit"])
            XCTAssertEqual(made.status, 0, made.output)
            total += count
            XCTAssertTrue([9, 13, 25].contains(total))
            let stats = try sandbox.run(["stats", "extinguisher-check", "--json"])
            XCTAssertEqual(stats.status, 0, "\(total) forms: \(stats.output)")
            let figures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], stats.stdout)
            XCTAssertEqual(figures["forms"] as? Int, total, stats.stdout)
            XCTAssertEqual(figures["simulated"] as? Int, total, stats.stdout)
            let text = try sandbox.run(["stats", "extinguisher-check"])
            XCTAssertEqual(text.status, 0, "\(total) forms: \(text.output)")
        }
    }

    func testErrorsHaveTheirExitStatus() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples(as: "ana")
        let unknown = try sandbox.run(["stats", "no-such-template"], as: "ana")
        XCTAssertEqual(unknown.status, 66, unknown.output)
        XCTAssertTrue(unknown.stderr.contains("no template \"no-such-template\""), unknown.stderr)
        let notChoice = try sandbox.run(["stats", "pump-inspection", "--group-by", "pressure"], as: "ana")
        XCTAssertEqual(notChoice.status, 64, notChoice.output)
        XCTAssertTrue(notChoice.stderr.contains("only a multiple-choice or true/false question can group forms"), notChoice.stderr)
        let noQuestion = try sandbox.run(["stats", "pump-inspection", "--group-by", "nope", "--json"], as: "ana")
        XCTAssertEqual(noQuestion.status, 64, noQuestion.output)
        XCTAssertTrue(noQuestion.stderr.contains("\"code\":\"unknown-group-by\""), noQuestion.stderr)
        let badDay = try sandbox.run(["stats", "pump-inspection", "--from", "2026-02-30"], as: "ana")
        XCTAssertEqual(badDay.status, 64, badDay.output)
        XCTAssertTrue(badDay.stderr.contains("--from is \"2026-02-30\""), badDay.stderr)
        let backwards = try sandbox.run(["stats", "pump-inspection", "--from", "2026-03-02", "--to", "2026-03-01"], as: "ana")
        XCTAssertEqual(backwards.status, 64, backwards.output)
        let other = try sandbox.run(["stats", "pump-inspection", "--user", "bob"], as: "ana")
        XCTAssertEqual(other.status, 77, other.output)
        let none = try sandbox.run(["stats", "pump-inspection"], as: "ana")
        XCTAssertEqual(none.status, 0, none.output)
        XCTAssertTrue(none.stdout.contains("No completed forms match"), none.stdout)
    }

    func json(_ result: RunResult) throws -> [String: Any] {
        XCTAssertEqual(result.status, 0, result.output)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.output)
    }
}
