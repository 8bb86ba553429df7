import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import XCTest

/// The office's sign-in: the directory through the same code as `mi login`, the cookie's
/// attributes, CSRF on every POST, the failed sign-in limits, and the headers on every answer.
final class OfficeSignInTests: XCTestCase {
    func testSignInSetsAStrictHttpOnlyCookieAndGoesWhereItWasAsked() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let form = try await client.signInForm()
            XCTAssertTrue(form.html.contains("id=\"login\""), form.html)
            let response = try await client.postSignIn(user: "fiona", password: FakeDirectory.password, form: form,
                                                       next: "/submissions?user=ana")
            XCTAssertEqual(response.status, .seeOther, response.text)
            XCTAssertEqual(response.headers[.location], "/submissions?user=ana")
            let cookie = try XCTUnwrap(response.setCookies.first { $0.hasPrefix("mi_office=") })
            XCTAssertTrue(cookie.contains("HttpOnly"), cookie)
            XCTAssertTrue(cookie.contains("SameSite=Strict"), cookie)
            XCTAssertTrue(cookie.contains("Max-Age=3600"), "expires with Server.TokenMinutes: \(cookie)")
            XCTAssertFalse(cookie.contains("Secure"), "plain HTTP: \(cookie)")
            let token = String(cookie.dropFirst("mi_office=".count).prefix { $0 != ";" })
            // The cookie is the API's token: the API takes it for reading.
            let templates = try await client.execute(uri: "/api/v1/templates", method: .get,
                                                     headers: [.cookie: "mi_office=\(token)"]) { $0 }
            XCTAssertEqual(templates.status, .ok, templates.text)
            // …but never for a request that changes something.
            let upload = try await client.execute(uri: "/api/v1/submissions", method: .post,
                                                  headers: [.cookie: "mi_office=\(token)", .contentType: "multipart/form-data; boundary=x"],
                                                  body: ByteBuffer(string: "--x--\r\n")) { $0 }
            XCTAssertEqual(upload.status, .unauthorized, upload.text)
        }
    }

    func testTheCookieIsSecureBehindAnHTTPSProxy() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let form = try await client.signInForm()
            let response = try await client.postSignIn(user: "fiona", password: FakeDirectory.password, form: form,
                                                       headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            let cookie = try XCTUnwrap(response.setCookies.first { $0.hasPrefix("mi_office=") })
            XCTAssertTrue(cookie.contains("Secure"), cookie)
        }
    }

    func testASignInWithoutTheFormsTokenIsRefused() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let form = try await client.signInForm()
            for token in [nil, "", "forged", String(repeating: "A", count: 43)] {
                let response = try await client.postSignIn(user: "fiona", password: FakeDirectory.password, form: form, token: .some(token))
                XCTAssertEqual(response.status, .forbidden, "token \(token ?? "none"): \(response.text)")
                XCTAssertFalse(response.setCookies.contains { $0.hasPrefix("mi_office=") })
            }
            // The token of another browser (another sign-in cookie) is no use either.
            let other = try await client.signInForm()
            let crossed = try await client.postSignIn(user: "fiona", password: FakeDirectory.password,
                                                      form: SignInForm(cookie: form.cookie, token: other.token, html: ""))
            XCTAssertEqual(crossed.status, .forbidden, crossed.text)
            // Any Authorization header is not a way around it: only a valid bearer token is (a script's).
            let pretending = try await client.postSignIn(user: "fiona", password: FakeDirectory.password, form: form, token: .some(nil),
                                                         headers: [.authorization: "Bearer forged"])
            XCTAssertEqual(pretending.status, .forbidden, pretending.text)
            XCTAssertEqual(fixture.fakeDirectory.calls, 0, "the directory is not asked without a valid token")
        }
    }

    func testAWrongPasswordShowsTheFormAgainWithTheReasonAsText() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let form = try await client.signInForm()
            let response = try await client.postSignIn(user: "<b>fiona</b>", password: "wrong", form: form)
            XCTAssertEqual(response.status, .unauthorized)
            XCTAssertTrue(response.text.contains("class=\"error\""), response.text)
            XCTAssertTrue(response.text.contains("&lt;b&gt;fiona&lt;/b&gt;"), "the user name typed is kept, escaped")
            XCTAssertFalse(response.text.contains("<b>fiona</b>"))
            XCTAssertFalse(response.setCookies.contains { $0.hasPrefix("mi_office=") })
        }
    }

    func testFailedSignInsAreLimitedPerUserForTheOfficeAndTheAPIAlike() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let form = try await client.signInForm()
            for _ in 0..<3 {
                let response = try await client.postSignIn(user: "fiona", password: "guess", form: form)
                XCTAssertEqual(response.status, .unauthorized)
            }
            for _ in 0..<2 {
                let body = ByteBuffer(string: #"{"user": "fiona", "password": "guess"}"#)
                let response = try await client.execute(uri: "/api/v1/session", method: .post, body: body) { $0 }
                XCTAssertEqual(response.status, .unauthorized)
            }
            let calls = fixture.fakeDirectory.calls
            // The sixth try, even with the right password, is refused without asking the directory.
            let refused = try await client.postSignIn(user: "fiona", password: FakeDirectory.password, form: form)
            XCTAssertEqual(refused.status, .tooManyRequests, refused.text)
            XCTAssertNotNil(refused.headers[.retryAfter])
            XCTAssertTrue(refused.text.contains("too many failed sign-ins"), refused.text)
            let api = try await client.execute(uri: "/api/v1/session", method: .post,
                                               body: ByteBuffer(string: #"{"user": "fiona", "password": "secret"}"#)) { $0 }
            XCTAssertEqual(api.status, .tooManyRequests, api.text)
            XCTAssertEqual(fixture.fakeDirectory.calls, calls)
            // Another user is not locked out by fiona's failures.
            let ana = try await client.postSignIn(user: "ana", password: FakeDirectory.password, form: form)
            XCTAssertEqual(ana.status, .seeOther, ana.text)
            // After the window the right password works again.
            fixture.clock.advance(by: 15 * 60 + 1)
            let later = try await client.postSignIn(user: "fiona", password: FakeDirectory.password, form: form)
            XCTAssertEqual(later.status, .seeOther, later.text)
        }
    }

    func testSignOutNeedsTheTokenAndForgetsTheCookie() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let session = try await client.officeSession("fiona", fixture: fixture)
            let forged = try await client.execute(uri: "/logout", method: .post, headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(forged.status, .forbidden)
            let response = try await client.execute(uri: "/logout", method: .post,
                                                    headers: [.cookie: session.cookieHeader, .contentType: "application/x-www-form-urlencoded"],
                                                    body: ByteBuffer(string: "_csrf=\(session.csrf)")) { $0 }
            XCTAssertEqual(response.status, .seeOther, response.text)
            XCTAssertEqual(response.headers[.location], "/login")
            XCTAssertTrue(response.setCookies.contains { $0.hasPrefix("mi_office=;") && $0.contains("Max-Age=0") }, "\(response.setCookies)")
            // A copy of the cookie kept from before is refused: the session ended on the server.
            let copied = try await client.execute(uri: "/submissions", method: .get,
                                                  headers: [.cookie: session.cookieHeader, .accept: "text/html"]) { $0 }
            XCTAssertEqual(copied.status, .seeOther, copied.text)
            XCTAssertTrue(copied.headers[.location]?.hasPrefix("/login") ?? false, "\(copied.headers)")
            try await assertStatus(.unauthorized, await client.get("/api/v1/templates", token: session.token))
            // Another session of the same user is not touched.
            let other = try await client.officeSession("fiona", fixture: fixture)
            let page = try await client.execute(uri: "/submissions", method: .get,
                                                headers: [.cookie: other.cookieHeader, .accept: "text/html"]) { $0 }
            XCTAssertEqual(page.status, .ok)
        }
        let revoked = try String(contentsOf: fixture.layout.revokedSessions, encoding: .utf8)
        XCTAssertEqual(revoked.split(separator: "\n").count, 1, revoked)
    }

    /// HEAD on any GET route answers as GET without a body (`curl -I`): same status and headers.
    func testHeadAnswersAsGetWithoutTheBody() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let session = try await client.officeSession("fiona", fixture: fixture)
            let token = try await client.login("fiona")
            let cases: [(String, HTTPFields)] = [
                ("/health", [:]), ("/static/office.css", [:]), ("/login", [.accept: "text/html"]),
                ("/submissions", [.cookie: session.cookieHeader, .accept: "text/html"]),
                ("/templates", [.cookie: session.cookieHeader, .accept: "text/html"]),
                ("/api/v1/templates", [.authorization: "Bearer \(token)"]),
            ]
            for (path, headers) in cases {
                let get = try await client.execute(uri: path, method: .get, headers: headers) { $0 }
                let head = try await client.execute(uri: path, method: .head, headers: headers) { $0 }
                XCTAssertEqual(head.status, get.status, path)
                XCTAssertEqual(get.status, .ok, path)
                XCTAssertEqual(head.body.readableBytes, 0, path)
                XCTAssertEqual(head.headers[.contentType], get.headers[.contentType], path)
                if path.hasPrefix("/static") {
                    XCTAssertEqual(head.headers[.contentLength], "\(get.body.readableBytes)", path)
                }
            }
            let signedOut = try await client.execute(uri: "/submissions", method: .head) { $0 }
            XCTAssertEqual(signedOut.status, .seeOther, "HEAD of a page needs the session as GET does")
        }
    }

    func testOnlyPathsOfThisSiteAreFollowedAfterSignIn() {
        for own in ["/", "/submissions?q=a", "/submissions?q=a%20b&template=pump-inspection", "/templates/x/stats",
                    "/%2F%2Fevil.example", "/submissions/%09"] {
            XCTAssertEqual(SignInController.safeNext(own), own, "a path of this site, percent-encoded as the office writes it")
        }
        // As they arrive once the query is decoded: `next=/%09/evil` is "/\t/evil", and so on.
        let hostile: [String?] = [
            nil, "", "https://evil.example", "http:/evil.example", "//evil.example", "///evil.example", "/\\evil.example",
            "\\/evil.example", "/\\/evil.example", "javascript:alert(1)", "evil.example", " /x", "/a\nb",
            "/\t/127.0.0.1:47999/phish", "/\n/evil.example", "/\r\n/evil.example", "/\u{0B}/evil", "/\u{0C}/evil",
            "/\u{00}/evil", "/\u{1B}[2J", "/\u{7F}/evil", "/\u{85}/evil", "/\u{A0}/evil", "/\u{2028}/evil", "/\u{3000}/evil",
            "/ /evil.example", "/a b", "/\u{FF0F}evil.example", "/\u{200B}/evil", String(repeating: "/a", count: 1100),
        ]
        for value in hostile {
            XCTAssertEqual(SignInController.safeNext(value), "/", value.map { String(reflecting: $0) } ?? "nil")
        }
    }

    /// The probe of the issue: `GET /login?next=/%09/127.0.0.1:47999/phish` with a valid cookie
    /// went to `/<TAB>/127.0.0.1:47999/phish`, which browsers read as another host. Each
    /// encoded form of a hostile `next` now lands on `/`.
    func testHostileNextInTheQueryRedirectsHome() async throws {
        let fixture = try ServerFixture()
        try await fixture.test(.live) { client in
            let session = try await client.officeSession("fiona", fixture: fixture)
            for query in ["/%09/127.0.0.1:47999/phish", "/%0a/evil.example", "/%0d%0a/evil.example", "%2F%2Fevil.example",
                          "//evil.example", "/%5cevil.example", "/%5C/evil.example", "%5C%5Cevil.example", "https:%2F%2Fevil.example",
                          "/%20/evil.example", "/%E3%80%80/evil.example", "/%1b%5b2J"] {
                let response = try await client.execute(uri: "/login?next=" + query, method: .get,
                                                        headers: [.cookie: session.cookieHeader]) { $0 }
                XCTAssertEqual(response.status, .seeOther, query)
                XCTAssertEqual(response.headers[.location], "/", query)
            }
            let own = try await client.execute(uri: "/login?next=%2Fsubmissions%3Fq%3Da%2520b", method: .get,
                                               headers: [.cookie: session.cookieHeader]) { $0 }
            XCTAssertEqual(own.headers[.location], "/submissions?q=a%20b")
        }
    }

    func testEveryAnswerCarriesTheStrictHeadersAndBrowsersGetErrorPages() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            for uri in ["/login", "/health", "/api/v1/templates", "/static/office.css", "/no-such-page"] {
                let response = try await client.execute(uri: uri, method: .get, headers: [.accept: "text/html"]) { $0 }
                let policy = try XCTUnwrap(response.headers[.contentSecurityPolicy], uri)
                XCTAssertTrue(policy.contains("script-src 'self'") && policy.contains("default-src 'none'"), policy)
                XCTAssertFalse(policy.contains("unsafe"), policy)
                XCTAssertEqual(response.headers[HTTPField.Name("X-Content-Type-Options")!], "nosniff")
            }
            let page = try await client.execute(uri: "/no-such-page", method: .get, headers: [.accept: "text/html"]) { $0 }
            XCTAssertEqual(page.status, .notFound)
            XCTAssertEqual(page.headers[.contentType], "text/html; charset=utf-8")
            let api = try await client.execute(uri: "/api/v1/nothing", method: .get, headers: [.accept: "text/html"]) { $0 }
            XCTAssertEqual(api.status, .notFound)
            XCTAssertNotNil(api.errorMessage, "an API path keeps the JSON error body even for a browser")
            let css = try await client.execute(uri: "/static/office.css", method: .get) { $0 }
            let etag = try XCTUnwrap(css.headers[.eTag])
            let again = try await client.execute(uri: "/static/office.css", method: .get, headers: [.ifNoneMatch: etag]) { $0 }
            XCTAssertEqual(again.status, .notModified)
            try await assertStatus(.notFound, try await client.execute(uri: "/static/..%2Fsigning.key", method: .get) { $0 })
        }
    }

    func testTheLimiterForgetsFailuresAfterTheWindowAndCountsAddressesApart() {
        let limiter = SignInLimiter(limits: .init(perUser: 2, perAddress: 3, window: 100))
        let start = Date(timeIntervalSince1970: 1_000_000)
        limiter.recordFailure(user: "Ana", address: "10.0.0.1", now: start)
        XCTAssertNil(limiter.retryAfter(user: "ana", address: "10.0.0.1", now: start))
        limiter.recordFailure(user: "ana ", address: "10.0.0.1", now: start.addingTimeInterval(10))
        XCTAssertEqual(limiter.retryAfter(user: "ana", address: "10.0.0.2", now: start.addingTimeInterval(20)), 80,
                       "the user's count is the same under any spelling and from any address")
        XCTAssertNil(limiter.retryAfter(user: "ana", address: "10.0.0.1", now: start.addingTimeInterval(100)))
        limiter.recordFailure(user: "bob", address: "10.0.0.1", now: start.addingTimeInterval(101))
        limiter.recordFailure(user: "dora", address: "10.0.0.1", now: start.addingTimeInterval(101))
        XCTAssertEqual(limiter.retryAfter(user: "carla", address: "10.0.0.1", now: start.addingTimeInterval(101)), 9,
                       "three failures from one address hold every name")
        limiter.recordSuccess(user: "ana")
        XCTAssertNil(limiter.retryAfter(user: "ana", address: "10.0.0.9", now: start.addingTimeInterval(101)))
    }

    /// Fullwidth and other compatibility spellings are one account to the directory, so one count.
    func testTheLimiterCountsEveryWidthAndCaseOfANameAsOne() {
        let limiter = SignInLimiter(limits: .init(perUser: 3, perAddress: 100, window: 100))
        let start = Date(timeIntervalSince1970: 1_000_000)
        for (offset, spelling) in ["dmitri", "ｄｍｉｔｒｉ", "ＤＭＩＴＲＩ"].enumerated() {
            XCTAssertNil(limiter.retryAfter(user: spelling, address: "10.0.0.\(offset)", now: start))
            limiter.recordFailure(user: spelling, address: "10.0.0.\(offset)", now: start)
        }
        for spelling in ["dmitri", "ｄｍｉｔｒｉ", "Ｄmitri", " DMITRI"] {
            XCTAssertEqual(limiter.retryAfter(user: spelling, address: "10.0.0.9", now: start.addingTimeInterval(1)), 99, spelling)
        }
        XCTAssertNil(limiter.retryAfter(user: "dmitry", address: "10.0.0.9", now: start.addingTimeInterval(1)))
        limiter.recordSuccess(user: "ｄｍｉｔｒｉ")
        XCTAssertNil(limiter.retryAfter(user: "dmitri", address: "10.0.0.9", now: start.addingTimeInterval(1)))
    }
}

/// The sign-in form as a browser holds it: its sign-in cookie and the page's CSRF token.
struct SignInForm: Sendable {
    var cookie: String
    var token: String
    var html: String
}

/// A signed-in office browser: its session cookie and the pages' CSRF token.
struct OfficeBrowserSession: Sendable {
    var token: String
    var csrf: String
    var cookieHeader: String { "mi_office=\(token)" }
}

extension TestResponse {
    var setCookies: [String] { headers[values: .setCookie] }
}

extension TestClientProtocol {
    func signInForm() async throws -> SignInForm {
        let response = try await execute(uri: "/login", method: .get) { $0 }
        XCTAssertEqual(response.status, .ok, response.text)
        let cookie = try XCTUnwrap(response.setCookies.first { $0.hasPrefix("mi_signin=") })
        return SignInForm(cookie: String(cookie.prefix { $0 != ";" }), token: try Self.csrf(in: response.text), html: response.text)
    }

    /// POSTs the sign-in form; `token` replaces the form's CSRF token (`.some(nil)`: none sent).
    func postSignIn(user: String, password: String, form: SignInForm, token: String?? = nil, next: String = "/",
                    headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var fields = ["user=\(Self.encode(user))", "password=\(Self.encode(password))", "next=\(Self.encode(next))"]
        switch token {
        case .none: fields.append("_csrf=\(form.token)")
        case .some(.some(let value)): fields.append("_csrf=\(Self.encode(value))")
        case .some(.none): break
        }
        var headers: HTTPFields = [.cookie: form.cookie, .contentType: "application/x-www-form-urlencoded", .accept: "text/html"]
        headers.append(contentsOf: extra)
        return try await execute(uri: "/login", method: .post, headers: headers,
                                 body: ByteBuffer(string: fields.joined(separator: "&"))) { $0 }
    }

    /// Signs `user` in to the office; the pages' CSRF token is made with the server's signing key.
    func officeSession(_ user: String, fixture: ServerFixture) async throws -> OfficeBrowserSession {
        let form = try await signInForm()
        let response = try await postSignIn(user: user, password: FakeDirectory.password, form: form)
        let cookie = try XCTUnwrap(response.setCookies.first { $0.hasPrefix("mi_office=") }, response.text)
        let token = String(cookie.dropFirst("mi_office=".count).prefix { $0 != ";" })
        let key = try Data(contentsOf: fixture.signingKeyFile)
        let csrf = SessionTokens(keyBytes: Array(key), lifetime: 3600).csrfToken(binding: token)
        return OfficeBrowserSession(token: token, csrf: csrf)
    }

    static func csrf(in html: String) throws -> String {
        let marker = "name=\"csrf-token\" content=\""
        let start = try XCTUnwrap(html.range(of: marker), "no csrf-token meta in the page").upperBound
        return String(html[start...].prefix { $0 != "\"" })
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
