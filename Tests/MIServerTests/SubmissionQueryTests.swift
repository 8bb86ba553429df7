import Foundation
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The submissions listing: filters, the text search, every sort and keyset paging, and the
/// parsing of the listing's parameters. This class runs against SQLite;
/// `PostgresSubmissionQueryTests` runs the repository's tests against PostgreSQL.
class SubmissionQueryTests: XCTestCase {
    /// The engine the repository tests run against.
    class var engine: RepositoryEngine { .sqlite }

    /// One seeded submission, as the test expects to find it.
    struct Seed {
        var id: FormID
        var user: String
        var template: String
        var title: String
        var formName: String
        var receivedAt: Date
        var submittedAt: Date?
        var note: String
        var simulated = false
    }

    static let day: TimeInterval = 86_400
    static let notes = ["Válvula rota cerca de la bomba", "all fine", "pump noisy at start", "Kühler undicht", "valve replaced"]

    /// 40 submissions: two templates, three technicians, one per six hours from the test
    /// clock's start, some with equal form names and upload times so ties need the sequence.
    /// Names are `sim-3-0` … `sim-3-12`, whose natural order is not their byte order; every
    /// eighth form is simulated.
    func seed(_ repository: any SubmissionRepository) async throws -> [Seed] {
        let sample = try TemplateFixture.sampleTemplate()
        var boiler = sample
        boiler.id = "boiler-check"
        boiler.title = "Boiler check"
        var seeds: [Seed] = []
        for index in 0..<40 {
            let template = index % 3 == 0 ? boiler : sample
            let user = ["ana", "bob", "chloé"][index % 3 == 1 ? 1 : (index % 5 == 0 ? 2 : 0)]
            let id = FormID()
            // Every fourth pair shares its upload second.
            let received = TestClock.start.addingTimeInterval(TimeInterval((index / 2) * 6 * 3600) + (index % 4 == 0 ? 0 : TimeInterval(index % 2)))
            var form = Form(id: id, name: "sim-3-\(index % 13)", user: user, template: template,
                            createdAt: TestClock.start)
            if index % 8 == 3 { form.record(AuditEvent(at: TestClock.start, by: user, action: .simulated)) }
            form.status = .completed
            form.submittedAt = index % 9 == 4 ? nil : received.addingTimeInterval(-TimeInterval((index * 37) % 5000))
            let note = Self.notes[index % Self.notes.count]
            form.answers["notes"] = Answer(value: .text(note))
            if index == 7 { form.answers["guard"] = Answer(comment: "Schutzgitter fehlt") }
            if index == 11 { form.foremanComments = [ForemanComment(at: received, by: "fiona", text: "call the Ölservice")] }
            if index == 13 { form.userDisplayName = "Bob Smith" }
            let receipt = Receipt(id: id, user: user, formName: form.name, uploadedBy: "fiona", receivedAt: received, parts: [])
            let outcome = try await repository.record(receipt, form: form, placeFiles: {}, removeFiles: {})
            XCTAssertEqual(outcome, .recorded(receipt))
            seeds.append(Seed(id: id, user: user, template: template.id, title: template.title, formName: form.name,
                              receivedAt: received, submittedAt: form.submittedAt.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) },
                              note: note, simulated: form.isSimulated))
        }
        return seeds
    }

    func makeRepository() async throws -> (any SubmissionRepository, TemporaryDirectory) {
        try await Self.engine.makeRepository()
    }

    /// Every page of `query`, following the cursors.
    func allPages(_ repository: any SubmissionRepository, _ query: SubmissionQuery) async throws -> [SubmissionSummary] {
        var query = query
        var all: [SubmissionSummary] = []
        for _ in 0..<100 {
            let page = try await repository.submissions(query)
            XCTAssertLessThanOrEqual(page.submissions.count, query.limit)
            all += page.submissions
            guard let next = page.nextCursor else { return all }
            XCTAssertEqual(page.submissions.count, query.limit, "only the last page is short")
            var parameters: [(name: String, value: String)] = [("sort", query.sort.rawValue), ("order", query.order.rawValue),
                                                                ("limit", String(query.limit)), ("cursor", next)]
            if let template = query.template { parameters.append(("template", template)) }
            if let user = query.user { parameters.append(("user", user)) }
            if !query.words.isEmpty { parameters.append(("q", query.words.joined(separator: " "))) }
            if query.hideSimulated { parameters.append(("simulated", "hide")) }
            query = try SubmissionQuery(parameters: parameters)
        }
        XCTFail("the cursor never ended")
        return all
    }

    func testCursorPagesWalkEverythingInOrderForEverySort() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        let seeds = try await seed(repository)
        for sort in SubmissionQuery.Sort.allCases {
            for order in SubmissionQuery.Order.allCases {
                let expected = seeds.enumerated().sorted { lhs, rhs in
                    func key(_ seed: Seed) -> String {
                        switch sort {
                        case .uploaded: return String(format: "%012.0f", seed.receivedAt.timeIntervalSince1970)
                        case .submitted: return String(format: "%012.0f", seed.submittedAt?.timeIntervalSince1970 ?? 0)
                        case .template: return seed.title
                        case .technician: return seed.user
                        case .formName: return NaturalOrder.key(seed.formName)
                        }
                    }
                    let (left, right) = (key(lhs.element), key(rhs.element))
                    if left != right { return order == .ascending ? left < right : left > right }
                    return order == .ascending ? lhs.offset < rhs.offset : lhs.offset > rhs.offset
                }.map(\.element.id)
                for limit in [1, 7, 40, 500] {
                    let all = try await allPages(repository, SubmissionQuery(sort: sort, order: order, limit: limit))
                    XCTAssertEqual(all.map(\.id), expected, "\(sort) \(order) limit \(limit)")
                    XCTAssertEqual(Set(all.map(\.id)).count, seeds.count, "no duplicate")
                }
            }
        }
    }

    /// `sim-3-2` before `sim-3-12`, on every engine.
    func testFormNamesSortNaturally() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        _ = try await seed(repository)
        let names = try await allPages(repository, SubmissionQuery(sort: .formName, limit: 6)).map(\.formName)
        var distinct: [String] = []
        for name in names where distinct.last != name { distinct.append(name) }
        XCTAssertEqual(distinct, (0...12).map { "sim-3-\($0)" })
        XCTAssertTrue(NaturalOrder.precedes("sim-3-2", "sim-3-12"))
        XCTAssertTrue(NaturalOrder.precedes("a9", "a10") && NaturalOrder.precedes("a10", "b1") && NaturalOrder.precedes("a007", "a8"))
    }

    /// Every page walked forward is found again walking back with `before`, and the rows
    /// counted before a page's first row give its position ("51–55 of 55").
    func testPreviousPagesAndPositions() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        _ = try await seed(repository)
        for (sort, order) in [(SubmissionQuery.Sort.uploaded, SubmissionQuery.Order.descending), (.formName, .ascending),
                              (.technician, .descending), (.submitted, .ascending)] {
            var query = SubmissionQuery(template: "pump-inspection", sort: sort, order: order, limit: 4)
            let total = try await repository.count(query)
            var forward: [SubmissionPage] = []
            while true {
                let page = try await repository.submissions(query)
                forward.append(page)
                let position = try await {
                    guard let previous = page.previousCursor else { return 1 }
                    var before = query
                    (before.cursor, before.before) = (nil, SubmissionQuery.Cursor(encoded: previous))
                    return try await repository.count(before) + 1
                }()
                XCTAssertEqual(position, (forward.count - 1) * 4 + 1, "\(sort) \(order) page \(forward.count)")
                guard let next = page.nextCursor else { break }
                query.cursor = SubmissionQuery.Cursor(encoded: next)
            }
            XCTAssertEqual(forward.map(\.submissions.count).reduce(0, +), total)
            XCTAssertNil(forward.first?.previousCursor, "the first page has no previous page")
            // Back from the last page to the first.
            var backward = [forward.last?.submissions.map(\.id) ?? []]
            var previous = forward.last?.previousCursor
            while let cursor = previous {
                var before = query
                (before.cursor, before.before) = (nil, SubmissionQuery.Cursor(encoded: cursor))
                let page = try await repository.submissions(before)
                backward.insert(page.submissions.map(\.id), at: 0)
                XCTAssertNotNil(page.nextCursor, "a page before another has a next page")
                previous = page.previousCursor
            }
            XCTAssertEqual(backward, forward.map { $0.submissions.map(\.id) }, "\(sort) \(order)")
        }
        XCTAssertThrowsError(try SubmissionQuery(parameters: [
            ("cursor", SubmissionQuery.Cursor(sort: .uploaded, order: .descending, value: .integer(5), seq: 3).encoded),
            ("before", SubmissionQuery.Cursor(sort: .uploaded, order: .descending, value: .integer(5), seq: 3).encoded),
        ]))
    }

    /// `simulated=hide` leaves simulated forms out; `dates=submitted` filters and counts by the
    /// technician's submission time (a form without one is left out).
    func testSimulatedHiddenAndDatesBySubmission() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        let seeds = try await seed(repository)
        let real = try await allPages(repository, try SubmissionQuery(parameters: [("simulated", "hide"), ("limit", "7")]))
        XCTAssertEqual(Set(real.map(\.id)), Set(seeds.filter { !$0.simulated }.map(\.id)))
        XCTAssertLessThan(real.count, seeds.count)
        let hidden = try await repository.count(try SubmissionQuery(parameters: [("simulated", "hide")]))
        XCTAssertEqual(hidden, real.count)

        let query = try SubmissionQuery(parameters: [("dates", "submitted"), ("from", "2026-03-03"), ("to", "2026-03-04"), ("limit", "500")])
        let days = try await repository.submissions(query).submissions
        let start = TestClock.start.addingTimeInterval(-9 * 3600 + Self.day)
        let expected = seeds.filter { seed in
            guard let submitted = seed.submittedAt else { return false }
            return submitted >= start && submitted < start.addingTimeInterval(2 * Self.day)
        }
        XCTAssertEqual(Set(days.map(\.id)), Set(expected.map(\.id)))
        XCTAssertNotEqual(Set(days.map(\.id)), Set(seeds.filter { $0.receivedAt >= start && $0.receivedAt < start.addingTimeInterval(2 * Self.day) }.map(\.id)),
                          "the seeds submit before they upload: the two ranges differ")
        let since = TestClock.start.addingTimeInterval(Self.day)
        let counts = try await repository.counts(since: since, user: nil, by: .submitted)
        XCTAssertEqual(counts.days.map(\.count).reduce(0, +), seeds.filter { ($0.submittedAt ?? .distantPast) >= since }.count)
        let byDay = Dictionary(grouping: seeds.compactMap { $0.submittedAt }.filter { $0 >= since }) {
            Int($0.timeIntervalSince1970 / Self.day)
        }.mapValues(\.count)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: counts.days.map { (Int($0.day.timeIntervalSince1970 / Self.day), $0.count) }), byDay)
    }

    func testFiltersCombineWithPaging() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        let seeds = try await seed(repository)
        let boiler = try await allPages(repository, SubmissionQuery(template: "boiler-check", limit: 4))
        XCTAssertEqual(Set(boiler.map(\.id)), Set(seeds.filter { $0.template == "boiler-check" }.map(\.id)))
        XCTAssertTrue(boiler.allSatisfy { $0.templateTitle == "Boiler check" && $0.questions == 9 })

        let bob = try await allPages(repository, SubmissionQuery(user: "bob", sort: .formName, limit: 3))
        XCTAssertEqual(Set(bob.map(\.id)), Set(seeds.filter { $0.user == "bob" }.map(\.id)))
        XCTAssertEqual(bob.first { $0.userDisplayName != nil }?.technicianLabel, "Bob Smith (bob)")

        let both = try await allPages(repository, SubmissionQuery(template: "pump-inspection", user: "ana", sort: .submitted, limit: 2))
        XCTAssertEqual(Set(both.map(\.id)), Set(seeds.filter { $0.user == "ana" && $0.template == "pump-inspection" }.map(\.id)))

        // Days are whole UTC days, both ends included.
        let query = try SubmissionQuery(parameters: [("from", "2026-03-03"), ("to", "2026-03-04"), ("limit", "500")])
        let days = try await repository.submissions(query).submissions
        let start = TestClock.start.addingTimeInterval(-9 * 3600 + Self.day)
        XCTAssertEqual(Set(days.map(\.id)),
                       Set(seeds.filter { $0.receivedAt >= start && $0.receivedAt < start.addingTimeInterval(2 * Self.day) }.map(\.id)))
        XCTAssertFalse(days.isEmpty)
        let count = try await repository.count(query)
        XCTAssertEqual(count, days.count)

        // An ISO 8601 `to` includes its second.
        let last = seeds[10].receivedAt
        let upTo = try SubmissionQuery(parameters: [("to", last.ISO8601Format()), ("limit", "500")])
        let upToIDs = try await repository.submissions(upTo).submissions.map(\.id)
        XCTAssertEqual(Set(upToIDs), Set(seeds.filter { $0.receivedAt <= last }.map(\.id)))
    }

    func testSearchMatchesWordPrefixesIgnoringCaseAndAccents() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        let seeds = try await seed(repository)
        func ids(_ text: String, user: String? = nil) async throws -> Set<FormID> {
            var query = try SubmissionQuery(parameters: [("q", text), ("limit", "500")])
            query.user = user
            return Set(try await repository.submissions(query).submissions.map(\.id))
        }
        let valvula = Set(seeds.filter { $0.note.hasPrefix("Válvula") }.map(\.id))
        let searches: [(String, Set<FormID>)] = [
            ("valvula", valvula), ("VÁLVU", valvula), ("rota valv", valvula), ("bomba válvula", valvula),
            ("kuhler", Set(seeds.filter { $0.note.hasPrefix("Kühler") }.map(\.id))),
            ("valv", Set(seeds.filter { $0.note.hasPrefix("Válvula") || $0.note.hasPrefix("valve") }.map(\.id))),
            ("schutzgitter", [seeds[7].id]), ("olservice", [seeds[11].id]),
            ("sim-3-12", Set(seeds.filter { $0.formName == "sim-3-12" }.map(\.id))),
            ("valvula noisy", []), ("alv", []), ("\"valve", Set(seeds.filter { $0.note.hasPrefix("valve") }.map(\.id))),
        ]
        for (text, expected) in searches {
            let found = try await ids(text)
            XCTAssertEqual(found, expected, text)
        }
        let anaValve = try await ids("valv", user: "ana")
        XCTAssertEqual(anaValve, Set(seeds.filter { $0.user == "ana" && ($0.note.hasPrefix("Válvula") || $0.note.hasPrefix("valve")) }.map(\.id)))
        let paged = try await allPages(repository, SubmissionQuery(words: ["valv"], sort: .technician, limit: 2))
        let valve = try await ids("valv")
        XCTAssertEqual(Set(paged.map(\.id)), valve)
    }

    func testDashboardCounts() async throws {
        let (repository, folder) = try await makeRepository()
        _ = folder
        let seeds = try await seed(repository)
        let since = TestClock.start.addingTimeInterval(Self.day)
        let counts = try await repository.counts(since: since, user: nil, by: .uploaded)
        let recent = seeds.filter { $0.receivedAt >= since }
        XCTAssertEqual(counts.templates.map(\.count).reduce(0, +), recent.count)
        XCTAssertEqual(counts.templates.first { $0.templateID == "boiler-check" }?.count, recent.filter { $0.template == "boiler-check" }.count)
        XCTAssertEqual(counts.days.map(\.count).reduce(0, +), recent.count)
        XCTAssertEqual(counts.days.map(\.day), counts.days.map(\.day).sorted())
        let ana = try await repository.counts(since: since, user: "ana", by: .uploaded)
        XCTAssertEqual(ana.days.map(\.count).reduce(0, +), recent.filter { $0.user == "ana" }.count)
    }

    func testParametersAreCheckedAndNamed() throws {
        let bad: [(String, String)] = [
            ("limit", "0"), ("limit", "501"), ("limit", "ten"), ("limit", ""), ("sort", "price"), ("sort", ""),
            ("order", "up"), ("from", "2026-02-30"), ("from", "yesterday"), ("to", "2026-13-01"), ("cursor", "!!"),
            ("cursor", "bm90IGEgY3Vyc29y"), ("q", String(repeating: "a", count: 501)), ("dates", "stored"),
            ("dates", ""), ("simulated", "no"), ("simulated", ""), ("before", "!!"),
        ]
        for (name, value) in bad {
            XCTAssertThrowsError(try SubmissionQuery(parameters: [(name, value)]), "\(name)=\(value)") { error in
                XCTAssertTrue((error as? SubmissionQueryError)?.errorDescription?.contains("`\(name)`") ?? false, "\(error)")
            }
        }
        XCTAssertThrowsError(try SubmissionQuery(parameters: [("from", "2026-03-05"), ("to", "2026-03-04")]))
        // A cursor of another sort or order is refused.
        let cursor = SubmissionQuery.Cursor(sort: .uploaded, order: .descending, value: .integer(5), seq: 3).encoded
        XCTAssertNoThrow(try SubmissionQuery(parameters: [("cursor", cursor)]))
        XCTAssertThrowsError(try SubmissionQuery(parameters: [("cursor", cursor), ("order", "asc")]))
        XCTAssertThrowsError(try SubmissionQuery(parameters: [("cursor", cursor), ("sort", "formName")]))
        let textCursor = SubmissionQuery.Cursor(sort: .formName, order: .ascending, value: .text("a.b:c"), seq: 9)
        XCTAssertEqual(SubmissionQuery.Cursor(encoded: textCursor.encoded), textCursor)

        let query = try SubmissionQuery(parameters: [("template", ""), ("q", "  Pump, válvula-3 "), ("from", "2026-03-02T10:00:00Z")])
        XCTAssertNil(query.template)
        XCTAssertEqual(query.words, ["Pump", "válvula", "3"])
        XCTAssertEqual(query.from, TestClock.start.addingTimeInterval(3600))
        XCTAssertEqual(query.sort, .uploaded)
        XCTAssertEqual(query.order, .descending)
        XCTAssertEqual(query.limit, 50)
        XCTAssertEqual(try SubmissionQuery(parameters: [("sort", "template")]).order, .ascending)
    }

    func testFormQueriesDecodePlusAsSpace() {
        let pairs = FormQuery.parameters("q=v%C3%A1lvula+rota&x=1%2B1&empty=&bare&bad=%ZZ")
        XCTAssertEqual(pairs.map(\.name), ["q", "x", "empty", "bare"])
        XCTAssertEqual(pairs.map(\.value), ["válvula rota", "1+1", "", ""])
        XCTAssertTrue(FormQuery.parameters(nil).isEmpty)
    }

    func testByteRanges() {
        let size: Int64 = 1000
        XCTAssertEqual(ByteRange(header: nil, size: size), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=0-99", size: size), .partial(0...99))
        XCTAssertEqual(ByteRange(header: "bytes=900-", size: size), .partial(900...999))
        XCTAssertEqual(ByteRange(header: "bytes=-100", size: size), .partial(900...999))
        XCTAssertEqual(ByteRange(header: "bytes=-5000", size: size), .partial(0...999))
        XCTAssertEqual(ByteRange(header: "bytes=990-5000", size: size), .partial(990...999))
        XCTAssertEqual(ByteRange(header: "bytes=1000-", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange(header: "bytes=-0", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange(header: "bytes=0-1,5-9", size: size), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=9-1", size: size), .whole)
        XCTAssertEqual(ByteRange(header: "items=0-1", size: size), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=a-b", size: size), .whole)
    }
}

/// The repository's tests of `SubmissionQueryTests` against PostgreSQL.
final class PostgresSubmissionQueryTests: SubmissionQueryTests {
    override class var engine: RepositoryEngine { .postgres }

    override func testCursorPagesWalkEverythingInOrderForEverySort() async throws {
        try await super.testCursorPagesWalkEverythingInOrderForEverySort()
    }

    override func testFiltersCombineWithPaging() async throws { try await super.testFiltersCombineWithPaging() }

    override func testSearchMatchesWordPrefixesIgnoringCaseAndAccents() async throws {
        try await super.testSearchMatchesWordPrefixesIgnoringCaseAndAccents()
    }

    override func testDashboardCounts() async throws { try await super.testDashboardCounts() }

    override func testFormNamesSortNaturally() async throws { try await super.testFormNamesSortNaturally() }

    override func testPreviousPagesAndPositions() async throws { try await super.testPreviousPagesAndPositions() }

    override func testSimulatedHiddenAndDatesBySubmission() async throws {
        try await super.testSimulatedHiddenAndDatesBySubmission()
    }
}
