import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MIKit

/// The endpoints of mi-server's API (openapi.yaml), each a request through `exchange` and the
/// checks of its answer.
extension ServerClient {
    /// `GET /health`: succeeds when mi-server answers `{"status":"ok"}`.
    public func health() throws {
        let response = try exchange(Request(endpoint: .health, url: try url(.health), method: .get,
                                            authorized: false, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the health check") }
        struct Health: Decodable { var status: String }
        let health = try decode(Health.self, from: response, expected: "mi-server's health answer")
        guard health.status == "ok" else {
            throw TransportError.badResponse(expected: "mi-server's health answer",
                                             detail: "status \"\(health.status)\" instead of \"ok\"")
        }
    }

    /// `POST /api/v1/session`: logs in and keeps the new token in `token`. Retried only when no
    /// connection could be made; a 401 is `wrongCredentials`.
    public func createSession(user: String, password: String) throws -> ServerSession {
        let body = try WireJSON.encoder().encode(SessionRequest(user: user, password: password))
        let response = try exchange(Request(endpoint: .session, url: try url(.session), method: .postJSON(body),
                                            authorized: false, retryScope: .connectionFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the login endpoint", login: true) }
        let session = try decode(ServerSession.self, from: response, expected: "an MI session")
        token = session.token
        return session
    }

    /// `GET /api/v1/templates`: the templates the server offers, sorted by id.
    public func templates() throws -> [TemplateListing] {
        let response = try exchange(Request(endpoint: .templateList, url: try url(.templateList), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the template list") }
        return try decode([TemplateListing].self, from: response, expected: "an MI template list")
    }

    /// `GET /api/v1/templates/{id}`: the template file's exact bytes. The body must be JSON, and
    /// match the SHA-256 in the `ETag` when the server sends one.
    public func template(id: String) throws -> Data {
        let response = try exchange(Request(endpoint: .template, url: try url(.template, id: id), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "template \"\(id)\"") }
        guard (try? JSONSerialization.jsonObject(with: response.body)) is [String: Any] else {
            throw TransportError.badResponse(expected: "an MI template", detail: Self.describe(response))
        }
        try Self.checkETag(of: response, expected: "the template the server listed")
        return response.body
    }

    /// A body whose SHA-256 is not the one its ETag names was damaged on the way.
    private static func checkETag(of response: Response, expected what: String) throws {
        guard let etag = response.header("ETag") else { return }
        let expected = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"W/ ")).lowercased()
        let actual = FileDigest.sha256(of: response.body)
        if expected.count == 64, expected != actual {
            throw TransportError.badResponse(expected: what, detail: "its SHA-256 is \(actual), the ETag says \(expected)")
        }
    }

    /// `GET Server.Paths.Template/files/{name}`: a picture template `id`'s questions show,
    /// checked against the ETag's SHA-256 when the server sends one.
    public func templateFile(id: String, name: String) throws -> Data {
        let url = try url(.template, id: id).appendingPathComponent("files").appendingPathComponent(name)
        let response = try exchange(Request(endpoint: .template, url: url, method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "file \"\(name)\" of template \"\(id)\"") }
        try Self.checkETag(of: response, expected: "the file the template names")
        return response.body
    }

    /// `GET /api/v1/submissions?template=ID&user=USER`: the first page of `user`'s submissions
    /// of template `template` (a technician sees only their own).
    public func submissions(template: String, user: String) throws -> [SubmissionSummary] {
        guard var components = URLComponents(url: try url(.submit), resolvingAgainstBaseURL: false) else {
            throw TransportError.invalidURL(endpoint: "submit")
        }
        components.queryItems = [URLQueryItem(name: "template", value: template), URLQueryItem(name: "user", value: user)]
        guard let listURL = components.url else { throw TransportError.invalidURL(endpoint: "submit") }
        let response = try exchange(Request(endpoint: .submit, url: listURL, method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the submission list") }
        return try decode(SubmissionPage.self, from: response, expected: "an MI submission list").submissions
    }

    /// `GET /api/v1/submissions/{id}`: the receipt of a stored submission, nil when the server has none.
    public func receipt(id: FormID) throws -> Receipt? {
        let response = try exchange(Request(endpoint: .submission, url: try url(.submission, id: id.description), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        if response.status == 404, APIErrorBody.message(in: response.body) != nil || response.body.isEmpty {
            return nil
        }
        guard response.status == 200 else { throw failure(for: response, notFound: "submission \(id)") }
        return try decode(Receipt.self, from: response, expected: "an MI receipt")
    }
}

/// The endpoints `mi sync` uses to bring back the forms the office sent back.
extension ServerClient {
    /// `GET /api/v1/returned`: the caller's forms the office sent back and that wait for them.
    public func returned() throws -> [SentBackForm] {
        let response = try exchange(Request(endpoint: .returned, url: try url(.returned), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else {
            throw failure(for: response, notFound: "the list of returned forms (GET /api/v1/returned; the server may be older than this mi)")
        }
        return try decode([SentBackForm].self, from: response, expected: "a list of returned forms")
    }

    /// The stored form.json of submission `id`, exactly as the server keeps it (the office's
    /// `GET /submissions/{id}/form.json`, with the bearer token).
    public func submissionForm(id: FormID) throws -> Data {
        let response = try exchange(Request(endpoint: .submissionForm, url: try url(.submissionForm, id: id.description), method: .get,
                                            authorized: true, retryScope: .transientFailures))
        guard response.status == 200 else { throw failure(for: response, notFound: "the form.json of submission \(id)") }
        return response.body
    }

    /// `GET /api/v1/submissions/{id}/media/{name}`: a stored media file, whole, written to
    /// `file` (created; removed again when the download fails) as it arrives — any size, in
    /// constant memory — and hashed on the way. At most `limit` bytes are taken (the receipt's
    /// size): a longer body stops the download. Returns the size and SHA-256 written.
    public func submissionMedia(id: FormID, name: String, to file: URL, limit: Int64) throws -> (size: Int64, sha256: String) {
        let url = try url(.submission, id: id.description).appendingPathComponent("media").appendingPathComponent(name)
        let sink = try DownloadSink(file: file, limit: limit)
        do {
            var request = Request(endpoint: .submission, url: url, method: .get, authorized: true, retryScope: .transientFailures)
            request.download = sink
            let response = try exchange(request)
            guard response.status == 200 else { throw failure(for: response, notFound: "media \"\(name)\" of submission \(id)") }
            return try sink.finish()
        } catch {
            unlink(file.path)
            throw error
        }
    }
}
