import Foundation
import XCTest

/// `--json` through the real `mi`: a form has one shape in every output that describes it
/// (`new`, `list`, `queue`, `review`), decoded here with one type; across the outputs a key
/// never has two JSON types; a per-form upload error is the same object as every JSON error.
final class JSONShapeTests: XCTestCase {
    /// A form as `mi list`, `mi queue`, `mi new` and `mi review` describe it.
    struct FormShape: Decodable {
        var id: String
        var name: String
        var user: String
        var status: String
        var template: String
        var templateVersion: Int
        var title: String
        var createdAt: Date
        var updatedAt: Date
        var submittedAt: Date?
        var returnedAt: Date?
        var expiresAt: Date?
        var daysLeft: Int?
        var answeredCount: Int
        var questionCount: Int
        var mediaCount: Int
    }

    struct ErrorShape: Decodable, Equatable {
        var code: String
        var `class`: String
        var message: String
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(text.utf8))
    }

    /// A JSON document as its kinds of value, read strictly (JSONDecoder reads no number as a
    /// boolean nor a boolean as a number).
    indirect enum Node: Decodable {
        case object([String: Node]), array([Node]), string, number, boolean, null

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if (try? container.decode(Bool.self)) != nil { self = .boolean }
            else if (try? container.decode(Double.self)) != nil { self = .number }
            else if (try? container.decode(String.self)) != nil { self = .string }
            else if let items = try? container.decode([Node].self) { self = .array(items) }
            else { self = .object(try container.decode([String: Node].self)) }
        }

        var kind: String? {
            switch self {
            case .object: return "object"
            case .array: return "array"
            case .string: return "string"
            case .number: return "number"
            case .boolean: return "boolean"
            case .null: return nil
            }
        }
    }

    /// Every key of every object in `node`, with the JSON types it holds (null left out). An
    /// answer's `value` takes its question's type, so it is not compared.
    private func collectKeyTypes(_ node: Node, into types: inout [String: Set<String>]) {
        switch node {
        case .object(let object):
            for (key, item) in object where key != "value" {
                if let kind = item.kind { types[key, default: []].insert(kind) }
                collectKeyTypes(item, into: &types)
            }
        case .array(let items):
            for item in items { collectKeyTypes(item, into: &types) }
        default:
            break
        }
    }

    func testEveryOutputDescribesAFormWithOneShapeAndEveryKeyHasOneType() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        // fiona logs in while the server runs (so her session holds its token), then it stops.
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        try sandbox.ensureLoggedIn("fiona")
        server.kill9()
        var outputs: [(String, String)] = []

        // ana: hall-b completed with a photo, hall-c started.
        _ = try sandbox.newForm("extinguisher-check", name: "hall-b")
        let answers = sandbox.root.appendingPathComponent("answers.json")
        try Data(ForemanTests.extinguisherAnswers.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", "hall-b", "--file", answers.path]).status, 0)
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        XCTAssertEqual(try sandbox.run(["attach", "hall-b", "seal", photo]).status, 0)
        XCTAssertEqual(try sandbox.run(["submit", "hall-b"]).status, 0)
        let created = try sandbox.run(["new", "extinguisher-check", "--name", "hall-c", "--json"])
        XCTAssertEqual(created.status, 0, created.output)
        outputs.append(("new", created.stdout))
        let new = try decode(FormShape.self, created.stdout)
        XCTAssertEqual([new.name, new.user, new.status, new.title], ["hall-c", "ana", "incomplete", "Fire extinguisher — quarterly check"])
        XCTAssertEqual([new.answeredCount, new.questionCount, new.mediaCount], [0, 4, 0])
        XCTAssertNotNil(new.daysLeft)

        struct ListShape: Decodable { var forms: [FormShape] }
        let list = try sandbox.run(["list", "--json"])
        XCTAssertEqual(list.status, 0, list.output)
        outputs.append(("list", list.stdout))
        let listed = try decode(ListShape.self, list.stdout).forms
        XCTAssertEqual(listed.map(\.user), ["ana", "ana"], "list names the user")
        let listedB = try XCTUnwrap(listed.first { $0.name == "hall-b" })
        XCTAssertEqual([listedB.answeredCount, listedB.questionCount, listedB.mediaCount], [4, 4, 1])

        struct QueueShape: Decodable { var completed: [FormShape]; var incomplete: [FormShape] }
        let queue = try sandbox.run(["queue", "--json"], as: "fiona")
        XCTAssertEqual(queue.status, 0, queue.output)
        outputs.append(("queue", queue.stdout))
        let queued = try decode(QueueShape.self, queue.stdout)
        XCTAssertEqual(queued.completed.map(\.status), ["completed"], "queue gives the status")
        XCTAssertEqual(queued.incomplete.map(\.status), ["incomplete"])
        XCTAssertEqual(queued.completed.first?.title, "Fire extinguisher — quarterly check", "queue gives the title")
        XCTAssertEqual(queued.completed.first?.id, listedB.id)

        let review = try sandbox.run(["review", "hall-b", "--json", "--history"])
        XCTAssertEqual(review.status, 0, review.output)
        outputs.append(("review", review.stdout))
        let reviewed = try decode(FormShape.self, review.stdout)
        XCTAssertEqual([reviewed.answeredCount, reviewed.questionCount, reviewed.mediaCount], [4, 4, 1])
        XCTAssertEqual(reviewed.id, listedB.id)

        let media = try sandbox.run(["media", "hall-b", "--json"])
        outputs.append(("media", media.stdout))
        let dry = try sandbox.run(["purge", "--dry-run", "--json"])
        outputs.append(("purge", dry.stdout))
        let exported = try sandbox.run(["export", "extinguisher-check", "--output", sandbox.root.appendingPathComponent("x.zip").path, "--json"])
        XCTAssertEqual(exported.status, 0, exported.output)
        outputs.append(("export", exported.stdout))

        // No server is running: the upload fails, and its error is the same object as any.
        struct UploadShape: Decodable {
            struct Outcome: Decodable { var form: String; var uploaded: Bool; var error: ErrorShape? }
            var forms: [Outcome]
            var uploadedCount: Int
            var failedCount: Int
        }
        let upload = try sandbox.run(["upload", "--all", "--json"], as: "fiona")
        XCTAssertEqual(upload.status, 75, upload.output)
        outputs.append(("upload", upload.stdout))
        let uploaded = try decode(UploadShape.self, upload.stdout)
        XCTAssertEqual(uploaded.failedCount, 1)
        let error = try XCTUnwrap(uploaded.forms.first?.error, upload.stdout)
        XCTAssertEqual(error.class, "unreachable")
        XCTAssertFalse(error.code.isEmpty)
        struct ErrorDocument: Decodable { var error: ErrorShape }
        let missing = try sandbox.run(["review", "no-such-form", "--json"])
        XCTAssertEqual(missing.status, 66, missing.output)
        outputs.append(("error", missing.stderr))
        XCTAssertEqual(try decode(ErrorDocument.self, missing.stderr).error.class, "notFound")

        var types: [String: Set<String>] = [:]
        for (name, text) in outputs {
            collectKeyTypes(try decode(Node.self, text), into: &types)
            XCTAssertFalse(text.isEmpty, name)
        }
        let mixed = types.filter { $0.value.count > 1 }
        XCTAssertEqual(mixed, [:], "keys with two JSON types across new, list, queue, review, media, purge, export, upload and errors")
        XCTAssertEqual(types["questions"], ["array"])
        XCTAssertEqual(types["error"], ["object"])
    }
}
