import Foundation
import HTTPTypes
import Hummingbird

/// `GET /static/{name}`: the embedded CSS and scripts, revalidated by ETag.
struct OfficeStatic {
    func register(on routes: RouteCollection<ServerContext>) {
        routes.get("static/{name}", use: file)
    }

    @Sendable func file(_ request: Request, context: ServerContext) async throws -> Response {
        guard let name = context.parameters.get("name"), let asset = OfficeAssets.statics[name] else {
            throw HTTPError(.notFound, message: "no such file")
        }
        let headers: HTTPFields = [.contentType: asset.contentType, .eTag: asset.etag, .cacheControl: "no-cache"]
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}

/// Headers on every answer, the API's included: a strict Content-Security-Policy (scripts,
/// styles and media from this server only, no inline script or style, no framing, forms post
/// only here), no MIME sniffing, and no referrer outside the site.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return response
    }
}
