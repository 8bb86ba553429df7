import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// Exports and statistics of a template with a counted repeat (`trees`, as many as `ntrees`) and
/// an open repeat nested in it (`stems`): forms answered by path through `Workflow` and
/// submitted, then the zip's CSVs read back and joined by `KEY`/`PARENT_KEY`, the JSON Lines
/// nested, a GeoJSON Feature per instance with a location, and the statistics per instance.
final class RepeatExportTests: XCTestCase {
    static let json = #"""
        {"id": "plot", "title": "Forest plot", "version": 1, "questions": [
          {"id": "site", "type": "shortAnswer", "text": "Site"},
          {"id": "ntrees", "type": "numeric", "text": "How many trees?"},
          {"id": "trees", "type": "repeat", "text": "Tree", "repeatCount": "${ntrees}", "questions": [
            {"id": "dbh", "type": "numeric", "text": "Diameter (cm)"},
            {"id": "gps", "type": "geopoint", "text": "Where"},
            {"id": "damage", "type": "group", "text": "Damage", "relevant": "${dbh} > 50", "questions": [
              {"id": "harm", "type": "shortAnswer", "text": "What damage?"}
            ]},
            {"id": "stems", "type": "repeat", "text": "Stem", "questions": [
              {"id": "cbh", "type": "numeric", "text": "Circumference (cm)"}
            ]}
          ]},
          {"id": "remark", "type": "shortAnswer", "text": "Remark", "relevant": "${ntrees} > 2"}
        ]}
        """#

    /// Two forms: `a` with 2 trees (tree 1 with stems 10 and 12, tree 2 damaged), `b` with 3
    /// (tree 2 damaged with one stem of 20), each submitted.
    func makeForms() throws -> (fixture: StoreFixture, forms: [Form]) {
        let fixture = try StoreFixture()
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(Self.json.utf8), source: "plot.json")
        let workflow = fixture.workflow()
        func answer(_ name: String, _ pairs: [(String, String)]) throws {
            for (path, value) in pairs { _ = try workflow.answer(name, [AnswerUpdate(question: path, value: .words([value]))]) }
        }
        _ = try workflow.startForm(templateID: "plot", name: "a")
        try answer("a", [("site", "North, \"upper\""), ("ntrees", "2"),
                         ("trees[1]/dbh", "40"), ("trees[1]/gps", "19.5 -99.25"),
                         ("trees[1]/stems[1]/cbh", "10"), ("trees[1]/stems[2]/cbh", "12"),
                         ("trees[2]/dbh", "60"), ("trees[2]/gps", "19.75 -99.5"), ("trees[2]/harm", "bark")])
        _ = try workflow.submit("a")
        fixture.clock.advance(by: 60)
        _ = try workflow.startForm(templateID: "plot", name: "b")
        try answer("b", [("site", "South"), ("ntrees", "3"),
                         ("trees[1]/dbh", "30"), ("trees[1]/gps", "20 -100"),
                         ("trees[2]/dbh", "55"), ("trees[2]/gps", "20.5 -100.5"), ("trees[2]/harm", "fire"),
                         ("trees[2]/stems[1]/cbh", "20"),
                         ("trees[3]/dbh", "45"), ("trees[3]/gps", "21 -101"), ("remark", "ok")])
        _ = try workflow.submit("b")
        let forms = try ["a", "b"].map { try fixture.store.load(try workflow.resolve($0)) }
        XCTAssertEqual(forms.map(\.status), [.completed, .completed])
        return (fixture, forms)
    }

    struct Source: ExportSource {
        var forms: [Form]
        var count: Int { forms.count }
        func load(_ index: Int) throws -> ExportedForm {
            ExportedForm(json: try FormFile.encode(forms[index]), form: forms[index], mediaPaths: [:])
        }
    }

    struct Collector: ExportSink {
        var bytes: [UInt8] = []
        mutating func write(_ chunk: [UInt8]) throws { bytes += chunk }
    }

    func export(_ forms: [Form], format: ExportFormat) throws -> [UInt8] {
        let writer = try ExportWriter(template: forms[0].template, source: Source(forms: forms), format: format, now: TestClock.start)
        var sink = Collector()
        try writer.write(to: &sink)
        return sink.bytes
    }

    /// RFC 4180 records as dictionaries by the header's names (a byte-order mark skipped).
    static func table(_ bytes: [UInt8]) throws -> (header: [String], rows: [[String: String]]) {
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        var records: [[String]] = [], record: [String] = [], field = "", quoted = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if quoted {
                if character == "\"" {
                    if index < text.endIndex, text[index] == "\"" { field.append("\""); index = text.index(after: index) } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                record.append(field); field = ""
            } else if character == "\r\n" || character == "\n" {
                record.append(field); field = ""
                records.append(record); record = []
            } else {
                field.append(character)
            }
        }
        let header = try XCTUnwrap(records.first)
        for record in records { XCTAssertEqual(record.count, header.count, "\(record)") }
        return (header, records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) })
    }

    func testZipHasAMainCSVAndOneCSVPerRepeatJoinedByKeyAndParentKey() throws {
        let (_, forms) = try makeForms()
        let reader = try ZipArchiveReader(try export(forms, format: .zip))
        XCTAssertEqual(reader.entries.map(\.name), ["plot.csv", "plot-trees.csv", "plot-stems.csv"])
        let main = try Self.table(try XCTUnwrap(reader.entry("plot.csv")?.data))
        let trees = try Self.table(try XCTUnwrap(reader.entry("plot-trees.csv")?.data))
        let stems = try Self.table(try XCTUnwrap(reader.entry("plot-stems.csv")?.data))

        XCTAssertEqual(Array(main.header.prefix(7)), ["SubmissionDate", "site", "site-comment", "ntrees", "ntrees-comment", "remark", "remark-comment"])
        XCTAssertFalse(main.header.contains("dbh"), "a repeat's questions are in its own file")
        XCTAssertEqual(trees.header, ["dbh", "dbh-comment", "gps-Latitude", "gps-Longitude", "gps-Altitude", "gps-Accuracy", "gps-comment",
                                      "harm", "harm-comment", "PARENT_KEY", "KEY"])
        XCTAssertEqual(stems.header, ["cbh", "cbh-comment", "PARENT_KEY", "KEY"])

        let ids = forms.map { $0.id.description }
        XCTAssertEqual(main.rows.map { $0["KEY"] }, ids)
        XCTAssertEqual(main.rows.map { $0["site"] }, ["North, \"upper\"", "South"])
        XCTAssertEqual(trees.rows.map { $0["KEY"] }, ["\(ids[0])/trees[1]", "\(ids[0])/trees[2]",
                                                      "\(ids[1])/trees[1]", "\(ids[1])/trees[2]", "\(ids[1])/trees[3]"])
        XCTAssertEqual(stems.rows.map { $0["KEY"] }, ["\(ids[0])/trees[1]/stems[1]", "\(ids[0])/trees[1]/stems[2]", "\(ids[1])/trees[2]/stems[1]"])

        // Joined back: each stem to its tree, each tree to its form.
        let treeByKey = Dictionary(uniqueKeysWithValues: trees.rows.map { ($0["KEY"] ?? "", $0) })
        let formByKey = Dictionary(uniqueKeysWithValues: main.rows.map { ($0["KEY"] ?? "", $0) })
        let joined = try stems.rows.map { stem -> String in
            let tree = try XCTUnwrap(treeByKey[stem["PARENT_KEY"] ?? ""], "\(stem)")
            let form = try XCTUnwrap(formByKey[tree["PARENT_KEY"] ?? ""], "\(tree)")
            return "\(form["site"] ?? "")|\(tree["dbh"] ?? "")|\(stem["cbh"] ?? "")"
        }
        XCTAssertEqual(joined, ["North, \"upper\"|40|10", "North, \"upper\"|40|12", "South|55|20"])
        let perForm = Dictionary(grouping: trees.rows) { formByKey[$0["PARENT_KEY"] ?? ""]?["site"] ?? "?" }.mapValues { $0.map { $0["dbh"] ?? "" } }
        XCTAssertEqual(perForm, ["North, \"upper\"": ["40", "60"], "South": ["30", "55", "45"]])
        XCTAssertEqual(trees.rows.map { $0["harm"] }, ["", "bark", "", "fire", ""])
        XCTAssertEqual(trees.rows.first?["gps-Latitude"], "19.5")
        XCTAssertEqual(trees.rows.first?["gps-Longitude"], "-99.25")
    }

    func testJSONLinesNestInstancesAndGeoJSONHasAFeaturePerInstance() throws {
        let (_, forms) = try makeForms()
        let lines = String(decoding: try export(forms, format: .jsonl), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let answers = try XCTUnwrap(first["answers"] as? [String: Any])
        XCTAssertEqual((answers["site"] as? [String: Any])?["value"] as? String, "North, \"upper\"")
        let trees = try XCTUnwrap(answers["trees"] as? [[String: Any]])
        XCTAssertEqual(trees.count, 2)
        XCTAssertEqual((trees[1]["dbh"] as? [String: Any])?["value"] as? Double, 60)
        let stems = try XCTUnwrap(trees[0]["stems"] as? [[String: Any]])
        XCTAssertEqual(stems.compactMap { ($0["cbh"] as? [String: Any])?["value"] as? Double }, [10, 12])
        XCTAssertNil(trees[1]["stems"], "tree 2 has no stem")
        XCTAssertFalse(answers.keys.contains { $0.contains("[") }, "\(answers.keys)")

        let geo = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try export(forms, format: .geojson))) as? [String: Any])
        let features = try XCTUnwrap(geo["features"] as? [[String: Any]])
        let properties = features.compactMap { $0["properties"] as? [String: Any] }
        let id = forms[0].id.description
        XCTAssertEqual(properties.compactMap { $0["path"] as? String }, ["trees[1]", "trees[2]", "trees[1]", "trees[2]", "trees[3]"],
                       "no form-level point: the only locations are in the trees")
        XCTAssertEqual(features.first?["id"] as? String, "\(id)/trees[1]")
        XCTAssertEqual(properties.first?["PARENT_KEY"] as? String, id)
        XCTAssertEqual(properties.first?["location"] as? String, "trees[1]/gps")
        XCTAssertEqual(properties.first?["dbh"] as? Double, 40)
        XCTAssertEqual(((features.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double]), [-99.25, 19.5])
    }

    func testStatisticsCountARepeatsQuestionsPerInstanceAndInstancesPerForm() throws {
        let (_, forms) = try makeForms()
        var builder = try StatisticsBuilder(template: forms[0].template)
        for form in forms { XCTAssertTrue(builder.add(form)) }
        let statistics = builder.result()
        XCTAssertEqual(statistics.forms, 2)
        let byID = Dictionary(uniqueKeysWithValues: statistics.questions.map { ($0.id, $0) })
        let dbh = try XCTUnwrap(byID["dbh"])
        XCTAssertEqual(dbh.repeat, "trees")
        XCTAssertEqual(dbh.instances, 5)
        XCTAssertEqual(dbh.answered, 5)
        XCTAssertEqual(dbh.numbers?.count, 5)
        XCTAssertEqual(dbh.numbers?.mean, 46)
        XCTAssertEqual(dbh.numbers?.median, 45)
        XCTAssertEqual(dbh.numbers?.minimum, 30)
        XCTAssertEqual(dbh.numbers?.maximum, 60)
        let cbh = try XCTUnwrap(byID["cbh"])
        XCTAssertEqual(cbh.repeat, "stems")
        XCTAssertEqual(cbh.instances, 3)
        XCTAssertEqual(cbh.numbers?.mean, 14)
        // harm is asked only of trees over 50 cm: 2 of 5, the other 3 not relevant, none missing.
        let harm = try XCTUnwrap(byID["harm"])
        XCTAssertEqual([harm.answered, harm.unanswered, harm.notRelevant], [2, 0, 3])
        // remark: relevant in b only.
        let remark = try XCTUnwrap(byID["remark"])
        XCTAssertEqual([remark.answered, remark.unanswered, remark.notRelevant], [1, 0, 1])
        XCTAssertNil(remark.repeat)
        XCTAssertEqual(byID["gps"]?.locations?.count, 5)

        let repeats = try XCTUnwrap(statistics.repeats)
        XCTAssertEqual(repeats, [
            RepeatStatistics(id: "trees", text: "Tree", parent: nil, instances: 5, forms: 2, minimum: 2, median: 2.5, maximum: 3),
            RepeatStatistics(id: "stems", text: "Stem", parent: "trees", instances: 3, forms: 2, minimum: 1, median: 1.5, maximum: 2),
        ])
        // Counted in two pieces, the same figures.
        var firstHalf = try StatisticsBuilder(template: forms[0].template)
        var secondHalf = try StatisticsBuilder(template: forms[0].template)
        firstHalf.add(forms[0])
        secondHalf.add(forms[1])
        firstHalf.merge(secondHalf)
        XCTAssertEqual(firstHalf.result(), statistics)
    }

    func testAFlatTemplatesStatisticsHaveNoRepeatOrRelevanceFields() throws {
        var form = try CSVLayoutTests.answeredForm()
        // The shipped pump inspection has form logic; without it, the figures are as they always were.
        form.template.questions = form.template.questions.map { question in
            var plain = question
            plain.logic = .none
            return plain
        }
        XCTAssertFalse(form.template.hasLogic)
        var builder = try StatisticsBuilder(template: form.template)
        builder.add(form)
        let json = String(decoding: try JSONEncoder().encode(builder.result()), as: UTF8.self)
        for key in ["\"repeats\"", "\"notRelevant\"", "\"repeat\"", "\"instances\""] { XCTAssertFalse(json.contains(key), key) }
        XCTAssertEqual(CSVLayout(template: form.template).repeats.count, 0)
    }

    func testAPhotoInAnInstanceIsListedInItsRowAndCopiedIntoTheZip() throws {
        let fixture = try StoreFixture()
        let json = #"""
            {"id": "rooms", "title": "Rooms", "version": 1, "questions": [
              {"id": "room", "type": "repeat", "text": "Room", "questions": [
                {"id": "name", "type": "shortAnswer", "text": "Name"},
                {"id": "photo", "type": "photo", "text": "Photo"}
              ]}
            ]}
            """#
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(json.utf8), source: "rooms.json")
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "rooms", name: "r")
        _ = try workflow.answer("r", [AnswerUpdate(question: "room[1]/name", value: .words(["kitchen"]))])
        _ = try workflow.attach("r", question: "room[1]/photo", files: [try fixture.mediaSource("k.jpg", bytes: 300)])
        _ = try workflow.answer("r", [AnswerUpdate(question: "room[2]/name", value: .words(["hall"]))])
        _ = try workflow.answer("r", [AnswerUpdate(question: "room[2]/photo", value: nil, comment: "too dark")])
        let (location, form) = try workflow.submit("r")
        let media = try XCTUnwrap(form.answers["room[1]/photo"]?.media.first)
        let writer = try ExportWriter(template: form.template, source: LocalExportSource(store: fixture.store, locations: [location]),
                                      format: .zip, now: TestClock.start)
        var sink = Collector()
        try writer.write(to: &sink)
        let reader = try ZipArchiveReader(sink.bytes)
        let id = form.id.description
        XCTAssertEqual(reader.entries.map(\.name), ["rooms.csv", "rooms-room.csv", "media/\(id)/\(media)"])
        XCTAssertEqual(reader.entry("media/\(id)/\(media)")?.data, (0..<300).map { UInt8($0 % 251) })
        let main = try Self.table(try XCTUnwrap(reader.entry("rooms.csv")?.data))
        XCTAssertEqual(main.rows.first?["AttachmentsExpected"], "1")
        XCTAssertEqual(main.rows.first?["AttachmentsPresent"], "1")
        let rooms = try Self.table(try XCTUnwrap(reader.entry("rooms-room.csv")?.data))
        XCTAssertEqual(rooms.rows.map { $0["photo"] }, [media, ""])
        XCTAssertEqual(rooms.rows.map { $0["photo-comment"] }, ["", "too dark"])
        XCTAssertEqual(rooms.rows.map { $0["PARENT_KEY"] }, [id, id])
        XCTAssertEqual(writer.progress.mediaFiles, 1)
    }

    func testGroupingByAQuestionInARepeatPutsAFormInTheGroupOfEveryOptionItsInstancesChose() throws {
        let json = #"""
            {"id": "g", "title": "G", "version": 1, "questions": [
              {"id": "r", "type": "repeat", "text": "R", "questions": [{"id": "ok", "type": "trueFalse", "text": "OK?"}]}
            ]}
            """#
        let template = try TemplateCoding().decode(Data(json.utf8), source: "g.json")
        var builder = try StatisticsBuilder(template: template, filters: StatisticsFilters(groupBy: "ok"))
        for answers in [["r[1]/ok": true, "r[2]/ok": false], ["r[1]/ok": true], [:]] {
            var form = Form(name: "f", user: "ana", template: template, createdAt: TestClock.start)
            form.status = .completed
            form.submittedAt = TestClock.start
            for (key, value) in answers { form.answers[key] = Answer(value: .bool(value)) }
            if !answers.isEmpty { form.repeats["r"] = answers.count }
            XCTAssertTrue(builder.add(form))
        }
        let groups = try XCTUnwrap(builder.result().groups)
        XCTAssertEqual(groups.map(\.label), ["true", "false", nil])
        XCTAssertEqual(groups.map(\.forms), [2, 1, 1])
        XCTAssertEqual(groups.map { $0.repeats?.first?.instances }, [3, 2, 0])
        XCTAssertEqual(builder.result().questions.first?.options?.map(\.count), [2, 1], "per instance")
    }

    func testCSVIsNoExportFormatAndTheMessageSaysTheZipHoldsIt() {
        XCTAssertThrowsError(try ExportFormat(parsing: "csv")) { error in
            XCTAssertTrue(error.localizedDescription.contains("the CSV comes in the zip"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("<template>-<repeat>.csv"), error.localizedDescription)
        }
    }
}
