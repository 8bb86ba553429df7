import CCurl
import Foundation
import MIKit

/// What a failed exchange means for the user: libcurl's failures and the API's error statuses
/// as `TransportError`s, and answers that are not what the endpoint promises.
extension ServerClient {
    func transportError(for failure: CurlFailure, url: URL) -> TransportError {
        let detail = failure.detail
        switch failure.code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return .cannotResolveHost(host: server.domain, detail: detail)
        case CURLE_COULDNT_CONNECT:
            return failure.osErrno == Int(ECONNREFUSED)
                ? .connectionRefused(url: serverAddress, detail: detail)
                : .cannotConnect(url: serverAddress, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: serverAddress, detail: detail)
        case CURLE_PEER_FAILED_VERIFICATION:
            return .certificateNotTrusted(host: server.domain, detail: detail)
        case CURLE_SSL_CACERT_BADFILE:
            return .caFileUnusable(path: server.caFile ?? "(the system's CA bundle)", detail: detail)
        case CURLE_SSL_CONNECT_ERROR:
            return .tlsFailed(host: server.domain, detail: detail)
        default:
            return .network(url: serverAddress, detail: detail)
        }
    }

    /// The error for a response that is not the success the endpoint expects.
    /// `login`: the request was the login itself, so a 401 means wrong credentials, not an expired session.
    func failure(for response: Response, notFound what: String, login: Bool = false) -> TransportError {
        let message = APIErrorBody.message(in: response.body)
        switch response.status {
        case 401:
            return login ? .wrongCredentials : .sessionExpired
        case 403:
            return .forbidden(message: message ?? "your role may not do this (403)")
        case 404:
            return .notFound(what: what)
        case 409 where APIErrorBody.code(in: response.body) == APIErrorBody.oncePerUserCode:
            return .oncePerUser(message: message ?? "the user already has a submission of this template (409)")
        case 409:
            return .conflict(message: message ?? "a different upload already used this form's id (409)")
        case 422 where APIErrorBody.code(in: response.body) == APIErrorBody.consentRequiredCode:
            return .consentRequired(message: message ?? "the form lacks the respondent's acceptance of its consent text (422)")
        case 422:
            return .rejected(message: message ?? "the server will not take this form (422)")
        case 413:
            return .uploadTooLarge(message: message, uploadBytes: response.uploadBytes)
        case 429:
            return .tooManyRequests(message: message, attempts: attemptsOfLastRequest)
        case 500...599:
            return .serverError(status: response.status, message: message, attempts: attemptsOfLastRequest)
        case 200...299:
            return .badResponse(expected: "what the API promises", detail: Self.describe(response))
        default:
            return .unexpectedStatus(status: response.status, message: message)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from response: Response, expected: String) throws -> T {
        do {
            return try WireJSON.decoder().decode(type, from: response.body)
        } catch {
            throw TransportError.badResponse(expected: expected, detail: Self.describe(response))
        }
    }

    /// Status, content type and the start of the body, for a `badResponse`.
    static func describe(_ response: Response) -> String {
        var parts = ["status \(response.status)"]
        if let type = response.header("Content-Type") { parts.append(type) }
        let start = String(decoding: response.body.prefix(60), as: UTF8.self)
            .map { $0.isNewline || $0 == "\t" ? " " : $0 }
        let text = String(start).trimmingCharacters(in: .whitespaces)
        parts.append(text.isEmpty ? "empty body" : "starting \"\(text)\(response.body.count > 60 ? "…" : "")\"")
        return parts.joined(separator: ", ")
    }
}
