import Foundation
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// openapi.yaml at the repository's root must describe exactly the routes the router has.
final class OpenAPITests: XCTestCase {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// (METHOD, path) pairs under `paths:`, read line by line: a path is a key indented two
    /// spaces, a method a key indented four under it.
    static func documentedRoutes(_ yaml: String) -> Set<RegisteredRoute> {
        var routes: Set<RegisteredRoute> = []
        var inPaths = false
        var currentPath: String?
        for line in yaml.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            let indent = line.prefix { $0 == " " }.count
            let key = line.trimmingCharacters(in: .whitespaces)
            if indent == 0 {
                inPaths = key == "paths:"
                currentPath = nil
                continue
            }
            guard inPaths, key.hasSuffix(":") else { continue }
            let name = String(key.dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            if indent == 2 {
                currentPath = name
            } else if indent == 4, let path = currentPath, methods.contains(name) {
                routes.insert(RegisteredRoute(method: name.uppercased(), path: path))
            }
        }
        return routes
    }

    func testOpenAPIDocumentListsExactlyTheRegisteredRoutes() async throws {
        let url = TemplateFixture.repositoryRoot.appendingPathComponent("openapi.yaml")
        let yaml = try String(contentsOf: url, encoding: .utf8)
        let documented = Self.documentedRoutes(yaml)

        let fixture = try ServerFixture()
        let services = try await makeServices(configuration: fixture.configuration, directory: fixture.fakeDirectory,
                                              logger: fixture.logs.logger(), now: { Date() })
        let registered = buildRouter(services).routes.filter { !$0.office }
        XCTAssertEqual(registered.count, Set(registered).count, "a route registered twice")
        XCTAssertEqual(documented, Set(registered),
                       "only in openapi.yaml: \(documented.subtracting(registered)); only in the router: \(Set(registered).subtracting(documented))")
        XCTAssertGreaterThanOrEqual(documented.count, 13, "the document was read")
        XCTAssertTrue(yaml.hasPrefix("openapi: 3.0"))
    }

    func testRoutesFollowServerPaths() async throws {
        let fixture = try ServerFixture([.set("Server.Paths.Submit", "/mi/uploads"), .set("Server.Paths.Template", "/mi/t/{id}"),
                                         .set("Server.Paths.Uploads", "/mi/tus")])
        let services = try await makeServices(configuration: fixture.configuration, directory: fixture.fakeDirectory,
                                              logger: fixture.logs.logger(), now: { Date() })
        let routes = Set(buildRouter(services).routes.map(\.description))
        XCTAssertTrue(routes.isSuperset(of: ["POST /mi/uploads", "GET /mi/uploads", "GET /mi/uploads/{id}", "GET /mi/t/{id}", "GET /health",
                                            "OPTIONS /mi/tus", "POST /mi/tus", "HEAD /mi/tus/{id}", "PATCH /mi/tus/{id}",
                                            "DELETE /mi/tus/{id}"]), "\(routes)")
    }

    /// The statistics' question `type` enum lists exactly the registry's types, in its order:
    /// a new question type is documented where clients read it.
    func testQuestionTypeEnumIsTheRegistry() throws {
        let yaml = try String(contentsOf: TemplateFixture.repositoryRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let expected = "enum: [" + QuestionTypes.all.map { $0.typeKey.rawValue }.joined(separator: ", ") + "]"
        XCTAssertTrue(yaml.contains(expected), "openapi.yaml has no \(expected)")
    }
}
