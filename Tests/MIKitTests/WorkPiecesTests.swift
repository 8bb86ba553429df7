import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// `WorkPieces`: the one way forms are cut into pieces read side by side, and the two readers
/// that use it (`Store.readConcurrently` for `mi stats`, `FormReader.concurrently` for the
/// server's statistics and exports) over real form.json files, for every count of forms from 0
/// to 100 and every number of pieces a test machine or a server might have.
final class WorkPiecesTests: XCTestCase {
    static let pieceCounts = [1, 2, 3, 4, 8, 64]

    func testEveryCountIsCutIntoOrderedNonEmptyBalancedRanges() {
        for count in 0...100 {
            for pieces in Self.pieceCounts + [0, -1, 1_000] {
                let ranges = WorkPieces.ranges(of: count, pieces: pieces)
                let label = "\(count) items in \(pieces) pieces: \(ranges)"
                XCTAssertEqual(ranges.count, count == 0 ? 0 : min(count, max(1, pieces)), label)
                XCTAssertEqual(ranges.flatMap { Array($0) }, Array(0..<count), "every index once, in order — \(label)")
                XCTAssertTrue(ranges.allSatisfy { !$0.isEmpty && $0.lowerBound < count }, label)
                let lengths = ranges.map(\.count)
                XCTAssertLessThanOrEqual((lengths.max() ?? 0) - (lengths.min() ?? 0), 1, "balanced — \(label)")
            }
        }
    }

    /// 100 completed forms written to a real store, each with its number in its name.
    private func storeWithForms() throws -> (StoreFixture, [FormLocation]) {
        let fixture = try StoreFixture()
        let locations = try (0..<100).map { number -> FormLocation in
            var form = try fixture.form(name: "form-\(number)", createdAt: TestClock.start)
            form.answers["hours"] = Answer(value: .number(Double(number)))
            form.status = .completed
            form.submittedAt = TestClock.start
            let created = try fixture.store.create(form)
            return try fixture.store.move(created, to: .completed, user: "ana", name: form.name)
        }
        return (fixture, locations)
    }

    func testStoreReadConcurrentlyReadsEveryFormOnceInOrderForEveryCountAndPieces() throws {
        let (fixture, all) = try storeWithForms()
        for count in 0...100 {
            let locations = Array(all.prefix(count))
            for pieces in Self.pieceCounts {
                let partials = fixture.store.readConcurrently(locations, into: [String](), pieces: pieces) { names, _, read in
                    names.append((try? read.get().name) ?? "unreadable")
                }
                XCTAssertEqual(partials.count, min(count, pieces), "\(count) forms, \(pieces) pieces")
                XCTAssertFalse(partials.contains { $0.isEmpty }, "\(count) forms, \(pieces) pieces: no empty piece")
                XCTAssertEqual(partials.flatMap { $0 }, (0..<count).map { "form-\($0)" }, "\(count) forms, \(pieces) pieces")
            }
        }
    }

    func testStatisticsCountEveryFormForEveryCountAndPieces() throws {
        let (fixture, all) = try storeWithForms()
        let template = try TemplateFixture.sampleTemplate()
        let empty = try StatisticsBuilder(template: template, filters: StatisticsFilters())
        for count in [0, 1, 5, 9, 13, 25, 27, 100] {
            for pieces in Self.pieceCounts {
                let builders = fixture.store.readConcurrently(Array(all.prefix(count)), into: empty, pieces: pieces) { builder, _, read in
                    if case .success(let form) = read { _ = builder.add(form) }
                }
                var merged = empty
                for builder in builders { merged.merge(builder) }
                XCTAssertEqual(merged.result().forms, count, "\(count) forms, \(pieces) pieces")
            }
        }
    }

    func testFormReaderConcurrentlyReadsEveryFileOnceInOrderForEveryCountAndPieces() throws {
        let (fixture, all) = try storeWithForms()
        defer { withExtendedLifetime(fixture) {} }
        let files = all.map(\.formFile.path)
        for count in 0...100 {
            for pieces in Self.pieceCounts {
                let forms = FormReader.concurrently(Array(files.prefix(count)), pieces: pieces) { file, reader in
                    try reader.decode(try DurableFile.contents(atPath: file))
                }
                XCTAssertEqual(forms.map { (try? $0.get().name) ?? "unreadable" }, (0..<count).map { "form-\($0)" },
                               "\(count) files, \(pieces) pieces")
            }
        }
    }
}
