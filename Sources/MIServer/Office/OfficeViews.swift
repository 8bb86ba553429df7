import Foundation
import Hummingbird
import Mustache

/// The office's pages, rendered on the server with swift-mustache. A page's view is rendered
/// into `layout` (navigation, the signed-in user, the CSRF token for scripts). `{{name}}`
/// escapes HTML, so answers, comments and names from forms are always text; `{{{…}}}` is used
/// for nothing but the page body this type rendered itself.
struct OfficeViews: Sendable {
    let library: MustacheLibrary

    /// Parses every embedded view; a view that does not parse is a defect of this build,
    /// reported at start-up rather than on the first request.
    init() throws {
        var library = MustacheLibrary()
        for (name, bytes) in OfficeAssets.views {
            do {
                try library.register(String(decoding: bytes, as: UTF8.self), named: name)
            } catch {
                throw ServerSetupError.officeView(name: name, detail: "\(error)")
            }
        }
        self.library = library
    }

    /// Which navigation entry is the current page.
    enum Section: String, Sendable { case dashboard, submissions, templates, audit, none }

    /// A whole HTML page: `view` rendered with `values`, inside the layout.
    ///
    /// - Parameters:
    ///   - scripts: names of files under `/static/` the page loads (no inline script: the CSP forbids it).
    func page(_ view: String, title: String, context: ServerContext, section: Section = .none,
              values: [String: Any] = [:], scripts: [String] = [], status: HTTPResponse.Status = .ok,
              headers: HTTPFields = [:]) -> Response {
        var values = values
        values["csrf"] = context.csrfToken
        let body = library.render(values, withTemplate: view) ?? ""
        var layout: [String: Any] = [
            "title": title, "content": body, "scripts": scripts,
            "csrf": context.csrfToken ?? "",
            "nav\(section.rawValue.capitalized)": true,
        ]
        if let session = context.session {
            layout["user"] = ["sub": session.sub, "name": session.name, "role": session.role.rawValue,
                              "foreman": session.role == .foreman]
        }
        let html = library.render(layout, withTemplate: "layout") ?? ""
        return Self.html(html, status: status, headers: headers)
    }

    /// An error page: what went wrong and what to do, in the layout.
    func errorPage(_ status: HTTPResponse.Status, message: String, context: ServerContext, headers: HTTPFields = [:]) -> Response {
        page("error", title: "\(status.code) \(status.reasonPhrase)", context: context,
             values: ["status": status.code, "reason": status.reasonPhrase, "message": message,
                      "signedIn": context.session != nil],
             status: status, headers: headers)
    }

    static func html(_ html: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        fields.append(contentsOf: headers)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// 303 See Other to a path of this site.
    static func redirect(to location: String, headers: HTTPFields = [:]) -> Response {
        var fields: HTTPFields = [.location: location, .cacheControl: "no-store"]
        fields.append(contentsOf: headers)
        return Response(status: .seeOther, headers: fields)
    }
}
