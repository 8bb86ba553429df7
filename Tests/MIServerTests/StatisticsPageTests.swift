import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `/templates/{id}/stats` as a browser gets it: the filter form, the totals, the per-day line
/// and a section per question with its SVG chart and table; links from `/templates` and `/`.
class StatisticsPageTests: EngineTestCase {
    static let path = "/templates/pump-inspection/stats"

    static func get(_ client: any TestClientProtocol, _ uri: String, _ session: OfficeBrowserSession) async throws -> TestResponse {
        try await SubmissionListPageTests.get(client, uri, session)
    }

    /// The HTML of the `section.question-stats` of `question`.
    static func section(_ question: String, in html: String, kind: String = "panel question-stats") -> String? {
        guard let start = html.range(of: "<section class=\"\(kind)\" data-question-id=\"\(question)\">") else { return nil }
        let rest = html[start.upperBound...]
        return String(rest[..<(rest.range(of: "</section>")?.lowerBound ?? rest.endIndex)])
    }

    static func count(_ marker: String, in text: String) -> Int { text.components(separatedBy: marker).count - 1 }

    /// A template in two languages: the page in its default language, a switch to the other
    /// (keeping the filters) that shows the questions and options in it.
    func testTheLanguageSwitchShowsTheQuestionsInEachLanguage() async throws {
        let fixture = try makeFixture()
        let template = try TemplateCoding(keys: .logical).decode(Data(SubmissionPageLanguageTests.template.utf8), source: "bomba")
        try TemplateCoding().encodeData(template).write(to: fixture.templates.appendingPathComponent("bomba.json"))
        try await fixture.test { client in
            var form = Form(name: "B-1", user: "bob", template: template, createdAt: Date(timeIntervalSince1970: 1_790_000_000))
            form.language = "English (en)"
            form.submittedAt = form.createdAt
            var body = MultipartBody()
            body.add(form: try FormFile.encode(form))
            try await assertStatus(.created, await client.upload(body, token: try await client.login("fiona")))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let spanish = try await Self.get(client, "/templates/bomba/stats", session)
            XCTAssertEqual(spanish.status, .ok, spanish.text)
            XCTAssertTrue(spanish.text.contains("<option value=\"state\">Estado (state)</option>"), spanish.text)
            XCTAssertTrue(spanish.text.contains(#"<strong class="language current" data-language="Español (es)">"#), spanish.text)
            XCTAssertTrue(spanish.text.contains(#"<a class="language" data-language="English (en)" href="?lang=English%20%28en%29">"#), spanish.text)
            let english = try await Self.get(client, "/templates/bomba/stats?user=bob&lang=en", session)
            XCTAssertEqual(english.status, .ok, english.text)
            XCTAssertTrue(english.text.contains("<option value=\"state\">State (state)</option>"), english.text)
            XCTAssertFalse(english.text.contains("Estado"), english.text)
            XCTAssertTrue(english.text.contains(#"href="?user=bob&amp;lang=Espa%C3%B1ol%20%28es%29""#), english.text)
            XCTAssertTrue(english.text.contains(#"<input type="hidden" name="lang" value="English (en)">"#), english.text)
        }
    }

    func testTheForemanSeesEveryQuestionChartedBesideItsNumbers() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await StatisticsAPITests.uploadSamples(client)
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await Self.get(client, Self.path, session)
            XCTAssertEqual(page.status, .ok, page.text)
            let html = page.text
            for marker in ["<form id=\"stats-filters\" class=\"panel filters\" method=\"get\" action=\"/templates/pump-inspection/stats\">",
                           "<input id=\"from\" name=\"from\" type=\"date\" value=\"\">", "<select id=\"user\" name=\"user\">",
                           "<option value=\"bob\">bob</option>", "<select id=\"version\" name=\"version\">",
                           "<option value=\"4\">version 4</option>", "<select id=\"groupBy\" name=\"groupBy\">",
                           "<option value=\"noise\">", "<strong>5 forms</strong>", "none simulated",
                           "<svg class=\"chart chart-days\"", "<polyline class=\"line\"", "<title>2026-03-02: 2 forms submitted</title>",
                           "<a id=\"nav-templates\" href=\"/templates\" class=\"current\">"] {
                XCTAssertTrue(html.contains(marker), "\(marker) in\n\(html)")
            }
            XCTAssertFalse(html.contains("<option value=\"notes\">"), "only choice questions group")
            XCTAssertFalse(html.contains("style="), "no inline style: the CSP forbids it")
            XCTAssertFalse(html.contains("<script"), "no script")
            XCTAssertEqual(Self.count("<section class=\"panel question-stats\"", in: html), 9, "a section per question")
            // The days between the first and the last are on the line at zero, without a marker.
            XCTAssertEqual(Self.count("<circle class=\"point\"", in: html), 3)

            let noise = try XCTUnwrap(Self.section("noise", in: html), html)
            XCTAssertTrue(noise.contains("<svg class=\"chart chart-hbars chart-options\""), noise)
            XCTAssertEqual(Self.count("<rect class=\"bar\"", in: noise), 4, "a bar per option, the empty one too")
            XCTAssertTrue(noise.contains("<title>Normal: 2 forms, 50.0 % of 4 answered</title>"), noise)
            XCTAssertTrue(noise.contains("<td>Cavitation (gravel noise)</td><td class=\"number\">0</td><td class=\"number\">0.0 %</td>"), noise)
            XCTAssertTrue(noise.contains("1 with only a comment"), noise)
            XCTAssertFalse(noise.contains("may add up to more than 100"), "one answer only")
            let leaks = try XCTUnwrap(Self.section("leaks", in: html))
            XCTAssertEqual(Self.count("<rect class=\"bar\"", in: leaks), 5)
            XCTAssertTrue(leaks.contains("may add up to more than 100 %"), "several answers: said so")
            let truth = try XCTUnwrap(Self.section("guard", in: html))
            XCTAssertEqual(Self.count("<rect class=\"bar\"", in: truth), 2)

            let hours = try XCTUnwrap(Self.section("hours", in: html))
            XCTAssertTrue(hours.contains("<svg class=\"chart chart-histogram\""), hours)
            let statistics = try XCTUnwrap(try StatisticsAPITests.expected(try StatisticsAPITests.samples.map {
                try StatisticsAPITests.form($0, template: try TemplateFixture.sampleTemplate())
            }).questions.first { $0.id == "hours" }?.numbers)
            XCTAssertEqual(Self.count("<rect class=\"bar\"", in: hours), statistics.histogram.count, "a bar per bin")
            XCTAssertTrue(hours.contains("<tr><th>Median</th><td class=\"number\">1200</td></tr>"), hours)
            XCTAssertTrue(hours.contains("<tr><th>Mean</th><td class=\"number\">1130</td></tr>"), hours)
            let notes = try XCTUnwrap(Self.section("notes", in: html))
            XCTAssertTrue(notes.contains("<svg class=\"chart chart-hbars chart-values\""), notes)
            XCTAssertTrue(notes.contains("<td>all fine</td><td class=\"number\">2</td>"), notes)
            let bearings = try XCTUnwrap(Self.section("bearings", in: html))
            XCTAssertEqual(Self.count("<div class=\"cell-stats\"", in: bearings), 5, "every cell that takes a value")
            XCTAssertTrue(bearings.contains("<svg class=\"chart chart-histogram\""), bearings)
        }
    }

    func testFiltersAndGroupsOnThePage() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await StatisticsAPITests.uploadSamples(client)
            let session = try await client.officeSession("fiona", fixture: fixture)
            let page = try await Self.get(client, Self.path + "?from=2026-03-04&to=&user=bob&version=4&groupBy=noise", session)
            XCTAssertEqual(page.status, .ok, page.text)
            let html = page.text
            for marker in ["<strong>2 forms</strong>", "value=\"2026-03-04\"", "<option value=\"bob\" selected>bob</option>",
                           "<option value=\"4\" selected>version 4</option>", "Grouped by “How does the pump sound while running?”",
                           "<section class=\"panel group\" data-group=\"Normal\">",
                           "<section class=\"panel group\" data-group=\"Not answered\">"] {
                XCTAssertTrue(html.contains(marker), "\(marker) in\n\(html)")
            }
            XCTAssertEqual(Self.count("<section class=\"panel group\"", in: html), 5, "every option, the empty ones too, and the unanswered")
            XCTAssertEqual(Self.count("<section class=\"group-question-stats\"", in: html), 5 * 8, "each group's questions but the grouping one")
            let normalGuard = try XCTUnwrap(Self.section("guard", in: html, kind: "group-question-stats"))
            XCTAssertTrue(normalGuard.contains("<title>true: 1 form, 100.0 % of 1 answered</title>"), normalGuard)
        }
    }

    func testRefusalsAreOfficePages() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await StatisticsAPITests.uploadSamples(client)
            let fiona = try await client.officeSession("fiona", fixture: fixture)
            let bad = try await Self.get(client, Self.path + "?version=last", fiona)
            XCTAssertEqual(bad.status, .badRequest)
            XCTAssertTrue(bad.headers[.contentType]?.hasPrefix("text/html") ?? false)
            XCTAssertTrue(bad.text.contains("parameter `version` is &quot;last&quot;") || bad.text.contains("parameter `version`"), bad.text)
            let unknown = try await Self.get(client, "/templates/nothing-here/stats", fiona)
            XCTAssertEqual(unknown.status, .notFound)
            XCTAssertTrue(unknown.headers[.contentType]?.hasPrefix("text/html") ?? false)

            let ana = try await client.officeSession("ana", fixture: fixture)
            let own = try await Self.get(client, Self.path, ana)
            XCTAssertEqual(own.status, .ok, own.text)
            XCTAssertTrue(own.text.contains("<strong>3 forms</strong>"), own.text)
            XCTAssertFalse(own.text.contains("All technicians"))
            XCTAssertFalse(own.text.contains("<option value=\"bob\""))
            let other = try await Self.get(client, Self.path + "?user=bob", ana)
            XCTAssertEqual(other.status, .forbidden)
            XCTAssertTrue(other.headers[.contentType]?.hasPrefix("text/html") ?? false)
        }
    }

    func testTheTemplatesPageAndTheDashboardLinkToTheStatistics() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await StatisticsAPITests.uploadSamples(client, samples: Array(StatisticsAPITests.samples.prefix(1)))
            let session = try await client.officeSession("fiona", fixture: fixture)
            let templates = try await Self.get(client, "/templates", session)
            XCTAssertTrue(templates.text.contains("<a class=\"statistics\" href=\"/templates/pump-inspection/stats\">Statistics</a>"), templates.text)
            let dashboard = try await Self.get(client, "/", session)
            XCTAssertTrue(dashboard.text.contains("<a class=\"chart-link\" href=\"/templates/pump-inspection/stats\">"), dashboard.text)
            XCTAssertTrue(dashboard.text.contains("<a class=\"statistics\" href=\"/templates/pump-inspection/stats\">Statistics</a>"))
        }
    }

    /// The chart geometry: bars scale to the largest, a zero is a bar of no width, ticks stay inside.
    func testChartGeometry() throws {
        let bars = SVGChart.bars([SVGChart.Bar(label: "a", title: "a: 4", value: 4, text: "4"),
                                  SVGChart.Bar(label: "b", title: "b: 0", value: 0, text: "0"),
                                  SVGChart.Bar(label: "c", title: "c: 1", value: 1, text: "1")],
                                 kind: "option", svgClass: "chart-options", label: "x")
        let rows = try XCTUnwrap(bars["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["width"] as? Double }, [SVGChart.barRoom, 0, (SVGChart.barRoom / 4).rounded()])
        let columns = SVGChart.columns([SVGChart.Column(value: 2, title: "", tick: "a"), SVGChart.Column(value: 1, title: "", tick: "b")],
                                       kind: "bin", svgClass: "chart-histogram", label: "x")
        let drawn = try XCTUnwrap(columns["bars"] as? [[String: Any]])
        XCTAssertEqual(drawn.map { $0["height"] as? Double }, [120, 60])
        XCTAssertEqual(drawn.map { $0["anchor"] as? String }, ["start", "end"])
        let line = SVGChart.line([SVGChart.Point(value: 0, title: nil), SVGChart.Point(value: 2, title: "d: 2")],
                                 firstTick: "d0", lastTick: "d1", svgClass: "chart-days", label: "x")
        XCTAssertEqual(line["points"] as? String, "30.0,138.0 590.0,18.0")
        XCTAssertEqual((line["markers"] as? [[String: Any]])?.count, 1)
        XCTAssertEqual(StatisticsPage.binText(HistogramBin(lower: 10, upper: 20, count: 1), integer: true), "10–19")
        XCTAssertEqual(StatisticsPage.binText(HistogramBin(lower: 7, upper: 8, count: 1), integer: true), "7")
        XCTAssertEqual(StatisticsPage.binText(HistogramBin(lower: 2.5, upper: 5, count: 1), integer: false), "2.5–5")
        XCTAssertEqual(StatisticsPage.number(1130), "1130")
        XCTAssertEqual(StatisticsPage.number(2.125), "2.125")
        XCTAssertEqual(StatisticsPage.number(0.1 + 0.2), "0.3")
    }
}

/// The Scores section of the statistics page, from figures built here.
final class StatisticsPageScoresTests: XCTestCase {
    func testCategoriesAsBarsAndNumbersAsAHistogram() throws {
        let template = try TemplateFixture.sample("ipaq")
        let statistics = TemplateStatistics(
            templateID: "ipaq", templateTitle: template.title, templateVersion: 1, filters: StatisticsFilters(), forms: 5,
            simulated: 0, days: [DayCount(day: "2026-03-02", count: 5)], questions: [], groups: nil,
            scores: [
                ScoreStatistics(key: "ipaq.totalMET", forms: 4,
                                numbers: NumberSummary(values: [600, 3360, 1455, 99.5], integer: false)),
                ScoreStatistics(key: "ipaq.category", forms: 5, categories: [
                    OptionCount(label: "moderate", count: 2, percent: 40), OptionCount(label: "<high>", count: 1, percent: 20),
                ]),
            ])
        let html = try XCTUnwrap(try OfficeViews().library.render(StatisticsPage.values(statistics, template: template),
                                                                  withTemplate: "stats"))
        XCTAssertTrue(html.contains("<section id=\"stats-scores\">"), html)
        let category = try XCTUnwrap(StatisticsPageTests.section("ipaq.category", in: html.replacingOccurrences(
            of: "<section class=\"panel score-stats\" data-score=", with: "<section class=\"panel question-stats\" data-question-id=")), html)
        XCTAssertTrue(category.contains("<svg class=\"chart chart-hbars chart-categories\""), category)
        XCTAssertEqual(StatisticsPageTests.count("<rect class=\"bar\"", in: category), 2)
        XCTAssertTrue(category.contains("<td>moderate</td><td class=\"number\">2</td><td class=\"number\">40.0 %</td>"), category)
        XCTAssertTrue(category.contains("&lt;high&gt;"), "a word is text, never markup")
        XCTAssertFalse(category.contains("<high>"))
        let total = try XCTUnwrap(StatisticsPageTests.section("ipaq.totalMET", in: html.replacingOccurrences(
            of: "<section class=\"panel score-stats\" data-score=", with: "<section class=\"panel question-stats\" data-question-id=")), html)
        XCTAssertTrue(total.contains("<svg class=\"chart chart-histogram\""), total)
        XCTAssertTrue(total.contains("<tr><th>Median</th><td class=\"number\">1027.5</td></tr>"), total)
        XCTAssertTrue(total.contains("· 4 forms"), total)

        var unscored = statistics
        unscored.scores = nil
        let plain = try XCTUnwrap(try OfficeViews().library.render(StatisticsPage.values(unscored, template: template), withTemplate: "stats"))
        XCTAssertFalse(plain.contains("stats-scores"))
    }
}

/// `StatisticsPageTests` with mi-server on PostgreSQL: the statistics page give the same results as on SQLite.
final class PostgresStatisticsPageTests: StatisticsPageTests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws { try await assertUploadsLandInTheEngine() }
}

/// The statistics page of a template with repeats: the Repeats table (instances per form), and a
/// repeat's question counted per instance with what was not relevant said apart.
final class StatisticsPageRepeatsTests: XCTestCase {
    func testRepeatsTableAndPerInstanceCounts() throws {
        let json = #"""
            {"id": "plot", "title": "Plot", "version": 1, "questions": [
              {"id": "ntrees", "type": "numeric", "text": "Trees"},
              {"id": "trees", "type": "repeat", "text": "Tree", "repeatCount": "${ntrees}", "questions": [
                {"id": "dbh", "type": "numeric", "text": "Diameter"},
                {"id": "harm", "type": "shortAnswer", "text": "Damage", "relevant": "${dbh} > 50"}
              ]}
            ]}
            """#
        let template = try TemplateCoding().decode(Data(json.utf8), source: "plot.json")
        var builder = try StatisticsBuilder(template: template)
        for (count, diameters) in [(2, [40.0, 60.0]), (3, [30.0, 55.0, 45.0])] {
            var form = Form(name: "f\(count)", user: "ana", template: template, createdAt: TestClock.start)
            form.status = .completed
            form.submittedAt = TestClock.start
            form.answers["ntrees"] = Answer(value: .number(Double(count)))
            for (index, diameter) in diameters.enumerated() {
                form.answers["trees[\(index + 1)]/dbh"] = Answer(value: .number(diameter))
                if diameter > 50 { form.answers["trees[\(index + 1)]/harm"] = Answer(value: .text("bark")) }
            }
            XCTAssertTrue(builder.add(form))
        }
        let html = try XCTUnwrap(try OfficeViews().library.render(StatisticsPage.values(builder.result(), template: template),
                                                                  withTemplate: "stats"))
        XCTAssertTrue(html.contains("<section id=\"stats-repeats\" class=\"panel\">"), html)
        XCTAssertTrue(html.contains("<tr data-repeat-id=\"trees\"><td>Tree <code>trees</code></td><td></td><td class=\"number instances\">5</td>"
            + "<td class=\"number forms\">2</td><td class=\"number minimum\">2</td><td class=\"number median\">2.5</td><td class=\"number maximum\">3</td></tr>"), html)
        let dbh = try XCTUnwrap(StatisticsPageTests.section("dbh", in: html), html)
        XCTAssertTrue(dbh.contains("counted per instance, <span class=\"instance-count\">5 instances</span>"), dbh)
        XCTAssertTrue(dbh.contains("<tr><th>Values</th><td class=\"number\">5</td></tr>"), dbh)
        XCTAssertTrue(dbh.contains("<tr><th>Mean</th><td class=\"number\">46</td></tr>"), dbh)
        let harm = try XCTUnwrap(StatisticsPageTests.section("harm", in: html), html)
        XCTAssertTrue(harm.contains("2 answered (40.0 %)"), harm)
        XCTAssertTrue(harm.contains("0 unanswered"), harm)
        XCTAssertTrue(harm.contains("<span class=\"not-relevant\">3 not relevant</span>"), harm)
        let ntrees = try XCTUnwrap(StatisticsPageTests.section("ntrees", in: html), html)
        XCTAssertFalse(ntrees.contains("not relevant"), ntrees)
        XCTAssertFalse(ntrees.contains("in-repeat"), ntrees)
    }
}
