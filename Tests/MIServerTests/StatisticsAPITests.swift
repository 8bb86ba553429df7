import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `GET /api/v1/templates/{id}/stats`: the stored submissions counted by MIKit's
/// `StatisticsBuilder`, with the filters, group-by, permissions and refusals of bad input.
class StatisticsAPITests: EngineTestCase {
    /// One stored form: who, when (a UTC day at noon), and its answers.
    struct Sample {
        var user: String
        var day: String
        var answers: [String: Answer]
        var id = FormID()
    }

    static func noon(_ day: String) throws -> Date {
        try UTCDay.parse(day, parameter: "day", endOfDay: false).addingTimeInterval(12 * 3600)
    }

    /// Five pump inspections over three days: ana's three, bob's two. One leaves `noise`
    /// unanswered with a comment; the hours are whole numbers, the pressures not.
    static let samples: [Sample] = [
        Sample(user: "ana", day: "2026-03-02", answers: [
            "guard": Answer(value: .bool(true)), "noise": Answer(value: .choices(["Normal"])),
            "leaks": Answer(value: .choices(["Mechanical seal", "Suction flange"])), "pressure": Answer(value: .number(4.5)),
            "hours": Answer(value: .number(1200)), "notes": Answer(value: .text("all fine")),
            "bearings": Answer(value: .cells([["61", "2.5"], ["58", "1.9"], ["70", nil]])),
        ]),
        Sample(user: "ana", day: "2026-03-02", answers: [
            "guard": Answer(value: .bool(false)), "noise": Answer(value: .choices(["Grinding"])),
            "leaks": Answer(value: .choices(["None"])), "pressure": Answer(value: .number(6.25)),
            "hours": Answer(value: .number(1300)), "notes": Answer(value: .text("all fine")),
        ]),
        Sample(user: "ana", day: "2026-03-04", answers: [
            "guard": Answer(value: .bool(true)), "noise": Answer(comment: "too loud to tell"),
            "hours": Answer(value: .number(1250)), "notes": Answer(value: .text("seal weeping")),
        ]),
        Sample(user: "bob", day: "2026-03-04", answers: [
            "guard": Answer(value: .bool(true)), "noise": Answer(value: .choices(["Normal"])),
            "leaks": Answer(value: .choices(["Mechanical seal"])), "pressure": Answer(value: .number(5)),
            "hours": Answer(value: .number(900)),
        ]),
        Sample(user: "bob", day: "2026-03-05", answers: [
            "guard": Answer(value: .bool(true)), "noise": Answer(value: .choices(["Humming"])),
            "hours": Answer(value: .number(1000)),
        ]),
    ]

    static func form(_ sample: Sample, template: Template) throws -> Form {
        var form = Form(id: sample.id, name: "pump-\(sample.id.description.prefix(6))", user: sample.user,
                        template: template, createdAt: TestClock.start)
        form.status = .completed
        form.submittedAt = try noon(sample.day)
        form.answers = sample.answers
        return form
    }

    /// Uploads every sample (as the foreman fiona) and returns the forms as stored.
    static func uploadSamples(_ client: any TestClientProtocol, samples: [Sample] = samples) async throws -> [Form] {
        let foreman = try await client.login("fiona")
        let template = try TemplateFixture.sampleTemplate()
        var forms: [Form] = []
        for sample in samples {
            let form = try form(sample, template: template)
            var body = MultipartBody()
            body.add(form: try FormFile.encode(form))
            try await assertStatus(.created, await client.upload(body, token: foreman))
            forms.append(form)
        }
        return forms
    }

    /// What MIKit's builder makes of `forms` with `filters`: the figures the server must give.
    static func expected(_ forms: [Form], _ filters: StatisticsFilters = StatisticsFilters()) throws -> TemplateStatistics {
        var builder = try StatisticsBuilder(template: try TemplateFixture.sampleTemplate(), filters: filters)
        for form in forms { builder.add(form) }
        return builder.result()
    }

    static func statistics(_ response: TestResponse, file: StaticString = #filePath, line: UInt = #line) throws -> TemplateStatistics {
        XCTAssertEqual(response.status, .ok, response.text, file: file, line: line)
        return try WireJSON.decoder().decode(TemplateStatistics.self, from: Data(buffer: response.body))
    }

    static let path = "/api/v1/templates/pump-inspection/stats"

    func testTheForemanGetsEveryStoredFormCountedByTheBuilder() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.uploadSamples(client)
            let token = try await client.login("fiona")
            let all = try Self.statistics(await client.get(Self.path, token: token))
            XCTAssertEqual(all, try Self.expected(forms))
            // The figures themselves, independently of the builder.
            XCTAssertEqual(all.forms, 5)
            XCTAssertEqual(all.templateVersion, 4)
            XCTAssertEqual(all.days, [DayCount(day: "2026-03-02", count: 2), DayCount(day: "2026-03-04", count: 2),
                                      DayCount(day: "2026-03-05", count: 1)])
            let noise = try XCTUnwrap(all.questions.first { $0.id == "noise" })
            XCTAssertEqual([noise.answered, noise.commentOnly, noise.unanswered], [4, 1, 0])
            XCTAssertEqual(noise.options?.map(\.label), ["Normal", "Humming", "Grinding", "Cavitation (gravel noise)"])
            XCTAssertEqual(noise.options?.map(\.count), [2, 1, 1, 0])
            XCTAssertEqual(noise.options?.first?.percent, 50)
            let hours = try XCTUnwrap(all.questions.first { $0.id == "hours" }?.numbers)
            XCTAssertEqual(hours.count, 5)
            XCTAssertEqual(hours.mean, (1200 + 1300 + 1250 + 900 + 1000) / 5)
            XCTAssertEqual(hours.minimum, 900)
            XCTAssertEqual(hours.median, 1200)
            XCTAssertEqual(hours.maximum, 1300)
            XCTAssertEqual(hours.histogram.reduce(0) { $0 + $1.count }, 5)
            let notes = try XCTUnwrap(all.questions.first { $0.id == "notes" })
            XCTAssertEqual(notes.values, [ValueCount(value: "all fine", count: 2), ValueCount(value: "seal weeping", count: 1)])
            XCTAssertNil(all.groups)
        }
    }

    func testFiltersAndGroupBy() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.uploadSamples(client)
            let token = try await client.login("fiona")

            let days = try Self.statistics(await client.get(Self.path + "?from=2026-03-03&to=2026-03-04", token: token))
            XCTAssertEqual(days.forms, 2, "to is inclusive: both forms of 03-04, none of 03-02 or 03-05")
            XCTAssertEqual(days, try Self.expected(forms, StatisticsFilters(
                from: try UTCDay.parse("2026-03-03", parameter: "from", endOfDay: false),
                to: try UTCDay.parse("2026-03-04", parameter: "to", endOfDay: true))))
            let instant = try Self.statistics(await client.get(Self.path + "?from=2026-03-04T12:00:00Z", token: token))
            XCTAssertEqual(instant.forms, 3, "an ISO 8601 instant, inclusive")

            let bob = try Self.statistics(await client.get(Self.path + "?user=bob&from=&to=&version=&groupBy=", token: token))
            XCTAssertEqual(bob.forms, 2, "empty fields of the filter form are absent")
            XCTAssertEqual(bob.filters.user, "bob")
            XCTAssertEqual(bob, try Self.expected(forms, StatisticsFilters(user: "bob")))

            let version4 = try Self.statistics(await client.get(Self.path + "?version=4", token: token))
            XCTAssertEqual(version4.forms, 5)
            let version2 = try Self.statistics(await client.get(Self.path + "?version=2", token: token))
            XCTAssertEqual(version2.forms, 0, "no stored form of version 2")
            XCTAssertEqual(version2.templateVersion, 4, "laid out by the newest the catalog has when no form keeps version 2")

            let grouped = try Self.statistics(await client.get(Self.path + "?groupBy=noise", token: token))
            XCTAssertEqual(grouped, try Self.expected(forms, StatisticsFilters(groupBy: "noise")))
            let groups = try XCTUnwrap(grouped.groups)
            XCTAssertEqual(groups.map(\.label), ["Normal", "Humming", "Grinding", "Cavitation (gravel noise)", nil],
                           "every option has its group, even an empty one, then the unanswered")
            XCTAssertEqual(groups.map(\.forms), [2, 1, 1, 0, 1])
            let multiple = try Self.statistics(await client.get(Self.path + "?groupBy=leaks&user=ana", token: token))
            XCTAssertEqual(multiple.groups?.first { $0.label == "Mechanical seal" }?.forms, 1)
            XCTAssertEqual(multiple.groups?.first { $0.label == nil }?.forms, 1, "ana's third form did not answer leaks")
            let truth = try Self.statistics(await client.get(Self.path + "?groupBy=guard", token: token))
            XCTAssertEqual(truth.groups?.map(\.forms), [4, 1, 0])
        }
    }

    func testATechnicianCountsOnlyTheirOwnAndIsRefusedAnothers() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.uploadSamples(client)
            let ana = try await client.login("ana")
            let own = try Self.statistics(await client.get(Self.path, token: ana))
            XCTAssertEqual(own.forms, 3)
            XCTAssertEqual(own.filters.user, "ana", "a technician's filter is forced to themselves")
            XCTAssertEqual(own, try Self.expected(forms, StatisticsFilters(user: "ana")))
            let named = try Self.statistics(await client.get(Self.path + "?user=ana", token: ana))
            XCTAssertEqual(named.forms, 3)
            let other = try await client.get(Self.path + "?user=bob", token: ana)
            XCTAssertEqual(other.status, .forbidden, other.text)
            XCTAssertTrue(other.errorMessage?.contains("bob") ?? false, other.text)
            try await assertStatus(.unauthorized, await client.get(Self.path, token: nil))
        }
    }

    func testBadParametersAreRefusedNamingThem() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            _ = try await Self.uploadSamples(client, samples: Array(Self.samples.prefix(1)))
            let token = try await client.login("fiona")
            for (query, parameter) in [("from=2026-13-01", "from"), ("to=yesterday", "to"), ("from=2026-03-05&to=2026-03-01", "to"),
                                       ("version=x", "version"), ("version=0", "version"), ("groupBy=notes", "groupBy"),
                                       ("groupBy=nothing", "groupBy"), ("user=a%2Fb", "user")] {
                let response = try await client.get(Self.path + "?" + query, token: token)
                XCTAssertEqual(response.status, .badRequest, "\(query): \(response.text)")
                XCTAssertTrue(response.errorMessage?.contains("`\(parameter)`") ?? false, "\(query): \(response.text)")
            }
            let unknown = try await client.get("/api/v1/templates/no-such-template/stats", token: token)
            XCTAssertEqual(unknown.status, .notFound, unknown.text)
            XCTAssertTrue(unknown.errorMessage?.contains("no-such-template") ?? false, unknown.text)
        }
    }

    /// A template removed from the catalog is still laid out by the copy its stored forms keep.
    func testATemplateNoLongerServedIsLaidOutByItsForms() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let forms = try await Self.uploadSamples(client)
            try FileManager.default.removeItem(at: fixture.templates.appendingPathComponent("pump-inspection.json"))
            let token = try await client.login("fiona")
            let statistics = try Self.statistics(await client.get(Self.path, token: token))
            XCTAssertEqual(statistics, try Self.expected(forms))
        }
    }
}

/// `StatisticsAPITests` with mi-server on PostgreSQL: the statistics API give the same results as on SQLite.
final class PostgresStatisticsAPITests: StatisticsAPITests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws { try await assertUploadsLandInTheEngine() }
}
