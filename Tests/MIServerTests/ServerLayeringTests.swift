import Foundation
import TestSupport
import XCTest

/// The server's layers, read from its sources: the office pages and the API's controllers both
/// use the services (Submissions, Sessions, Templates, Support…) and neither names the
/// other's types; the storage and acceptance code throws its own errors, which get their HTTP
/// status in one place (`HTTPRefusal`), never Hummingbird's `HTTPError`.
final class ServerLayeringTests: XCTestCase {
    private static var server: URL { TemplateFixture.repositoryRoot.appendingPathComponent("Sources/MIServer") }

    /// The Swift files of a folder of MIServer, with their text.
    private static func sources(_ folder: String) throws -> [(name: String, text: String)] {
        let url = server.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: url.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The types and free functions a folder declares at the top level.
    private static func declarations(_ folder: String) throws -> Set<String> {
        let pattern = try NSRegularExpression(pattern: #"^(?:(?:public|internal|final|private|fileprivate)\s+)*(?:struct|enum|class|actor|protocol|typealias|func)\s+([A-Za-z_][A-Za-z0-9_]*)"#,
                                              options: [.anchorsMatchLines])
        var names = Set<String>()
        for (_, text) in try sources(folder) {
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    /// Where `folder`'s code (comments left out) names one of `names`: "file: name" each.
    private static func uses(in folder: String, of names: Set<String>) throws -> [String] {
        var found: [String] = []
        for (file, text) in try sources(folder) {
            let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            found += words.intersection(names).sorted().map { "\(file): \($0)" }
        }
        return found
    }

    func testTheOfficeAndTheControllersNameOnlyServicesNotEachOther() throws {
        let controllers = try Self.declarations("Controllers")
        let office = try Self.declarations("Office")
        XCTAssertTrue(controllers.contains("SubmissionController"), "the scan finds the controllers' types: \(controllers.sorted())")
        XCTAssertTrue(office.contains("SubmissionPageController"), "the scan finds the office's types: \(office.sorted())")
        XCTAssertEqual(try Self.uses(in: "Office", of: controllers), [], "the office names the API's controllers — move what both need into a service")
        XCTAssertEqual(try Self.uses(in: "Controllers", of: office), [], "the API's controllers name the office's types — move what both need into a service")
    }

    func testStorageAndAcceptanceCodeThrowsDomainErrorsNotHTTPError() throws {
        for folder in ["Uploads", "Submissions"] {
            XCTAssertEqual(try Self.uses(in: folder, of: ["HTTPError"]), [],
                           "\(folder) throws HTTPError — throw the area's own error and map it in HTTPRefusal")
        }
    }
}
