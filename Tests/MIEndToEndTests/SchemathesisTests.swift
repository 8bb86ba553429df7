import Foundation
import XCTest

/// schemathesis (installed by scripts/setup.sh) generates requests from openapi.yaml, valid and
/// invalid, and checks every answer of the real mi-server against the document: statuses,
/// content types, headers, bodies, 405s with `Allow`, authentication.
final class SchemathesisTests: XCTestCase {
    /// What the schema cannot say, and only the server checks:
    /// - a multipart body can fit the schema without its form part being a valid form.json of a
    ///   template, and an `MI-Manifest`, `Upload-Metadata` or `Upload-Checksum` header can be a
    ///   string that is not a manifest, metadata or checksum: then 400 is right;
    /// - a listing's (the submissions', the audit log's) `from`, `to` and `cursor` are strings the schema cannot check (a date, a
    ///   day not before `from`, an earlier page's cursor): 400 is right; a media file is 404 for
    ///   a made-up id and 416 for a range past its end;
    /// - the statistics' and the export's `from`, `to`, `user` and `groupBy` are such strings too
    ///   (a date, a user name, a choice question of the template): 400 is right;
    /// - tus answers a missing or other `Tus-Resumable` with 412 (its protocol's status for a
    ///   version it does not speak), where schemathesis expects a 4xx of its own list.
    static let configuration = """
        [[operations]]
        include-operation-id = "uploadSubmission"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "409", "413"]

        [[operations]]
        include-operation-id = "putSubmission"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "409", "413"]

        [[operations]]
        include-operation-id = "createUpload"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "413"]
        checks.negative_data_rejection.expected-statuses = ["400", "401", "403", "404", "405", "412", "413", "415", "422"]
        checks.missing_required_header.expected-statuses = ["400", "401", "403", "412"]

        [[operations]]
        include-operation-id = "listSubmissions"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403"]

        [[operations]]
        include-operation-id = "listAuditEvents"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403"]

        [[operations]]
        include-operation-id = "getTemplateStatistics"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404"]

        [[operations]]
        include-operation-id = "exportTemplateSubmissions"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404"]

        [[operations]]
        include-operation-id = "getSubmissionMedia"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "416"]

        [[operations]]
        include-path-regex = "^/api/v1/uploads/"
        checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "460"]
        checks.negative_data_rejection.expected-statuses = ["400", "401", "403", "404", "405", "409", "412", "415", "422"]
        checks.missing_required_header.expected-statuses = ["400", "401", "403", "404", "412", "415"]
        """

    /// schemathesis has no serializer for `application/offset+octet-stream` (a tus PATCH body).
    static let hooks = """
        import schemathesis

        @schemathesis.serializer("application/offset+octet-stream")
        def offset_octet_stream(ctx, value):
            if isinstance(value, bytes):
                return value
            return str(value).encode("utf-8")
        """

    func testTheLiveServerAnswersAsOpenAPISays() throws {
        let sandbox = try Sandbox()
        let templates = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: sandbox.repository.appendingPathComponent("Samples/templates/pump-inspection.json"),
                                         to: templates.appendingPathComponent("pump-inspection.json"))
        let server = try RunningServer(sandbox)
        let base = "http://127.0.0.1:\(sandbox.server.port)"
        let token = try sandbox.apiToken("fiona")

        // tus bodies are raw bytes: sent as they are generated.
        try Self.hooks.write(to: sandbox.root.appendingPathComponent("mi_schemathesis_hooks.py"), atomically: true, encoding: .utf8)
        let reports = sandbox.root.appendingPathComponent("schemathesis-report")
        let configuration = sandbox.root.appendingPathComponent("schemathesis.toml")
        try Self.configuration.write(to: configuration, atomically: true, encoding: .utf8)
        let run = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "-m", "schemathesis.cli", "--config-file", configuration.path,
            "run", sandbox.repository.appendingPathComponent("openapi.yaml").path,
            "--url", base, "--checks", "all", "-H", "Authorization: Bearer \(token)",
            "--max-examples", "50", "--seed", "1", "--workers", "2", "--request-timeout", "10",
            "--report-dir", reports.path,
        ], environment: ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1", "SCHEMATHESIS_HOOKS": "mi_schemathesis_hooks",
                                                                     "PYTHONPATH": sandbox.root.path]) { $1 },
           in: sandbox.root)
        let serverLog = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "schemathesis found problems:\n\(run.output)\n--- mi-server's log (tail):\n\(serverLog.suffix(4000))")
        XCTAssertTrue(run.stdout.contains("passed") || run.stdout.contains("Passed"), run.output)
    }
}
