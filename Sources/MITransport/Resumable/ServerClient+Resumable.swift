import Foundation
import MIKit

/// The client side of resumable uploads: the tus 1.0 core protocol with the creation and
/// checksum extensions, at `Server.Paths.Uploads`.
extension ServerClient {
    /// The tus version spoken.
    static let tusVersion = "1.0.0"
    /// The first PATCH's size; the next ones aim at `chunkSeconds` each at the rate measured,
    /// between `minimumChunkSize` and `maximumChunkSize` (a cut costs at most one chunk: its
    /// checksum cannot be checked, so the server keeps none of it).
    static let firstChunkSize: Int64 = 4 << 20
    static let minimumChunkSize: Int64 = 1 << 20
    static let maximumChunkSize: Int64 = 32 << 20
    static let chunkSeconds = 2.0

    private var tusHeader: String { "Tus-Resumable: \(Self.tusVersion)" }

    /// `POST {uploads}`: a new resumable upload of `length` bytes for media `name` of form
    /// `formID`; returns its path on the server.
    func createResumableUpload(formID: String, name: String, length: Int64) throws -> String {
        let metadata = "form \(Data(formID.utf8).base64EncodedString()),name \(Data(name.utf8).base64EncodedString())"
        let response = try exchange(Request(endpoint: .uploads, url: try url(.uploads), method: .postEmpty,
                                            authorized: true, retryScope: .connectionFailures,
                                            headers: [tusHeader, "Upload-Length: \(length)", "Upload-Metadata: \(metadata)"]))
        guard response.status == 201 else { throw failure(for: response, notFound: "the resumable upload endpoint") }
        guard let location = response.header("Location") else {
            throw TransportError.badResponse(expected: "a resumable upload's Location", detail: Self.describe(response))
        }
        return try uploadPath(location)
    }

    /// `HEAD {upload}`: how many bytes the server holds, nil when it no longer has the upload.
    func resumableOffset(_ path: String) throws -> Int64? {
        let response = try exchange(Request(endpoint: .uploads, url: try uploadURL(path), method: .head,
                                            authorized: true, retryScope: .transientFailures, headers: [tusHeader]))
        if response.status == 404 || response.status == 410 { return nil }
        guard response.status == 200 || response.status == 204 else {
            throw failure(for: response, notFound: "the resumable upload")
        }
        guard let offset = response.header("Upload-Offset").flatMap({ Int64($0) }), offset >= 0 else {
            throw TransportError.badResponse(expected: "an Upload-Offset", detail: Self.describe(response))
        }
        return offset
    }

    /// What a PATCH answered.
    enum PatchOutcome: Equatable {
        /// Stored; the server's new offset.
        case accepted(Int64)
        /// 409: the server is at another offset.
        case offsetMismatch
        /// 460: the bytes arrived damaged and were discarded.
        case checksumMismatch
        /// 404/410: the upload is gone (expired).
        case gone
    }

    /// `PATCH {upload}`: `body` at `offset`, with its checksum. Sent once: its bytes are read
    /// from the file as they go, so a failed PATCH is taken up again from the server's offset.
    func patchResumable(_ path: String, offset: Int64, body: PatchBody, checksum: UploadChecksum) throws -> (PatchOutcome, sent: Int64) {
        let response = try exchange(Request(endpoint: .uploads, url: try uploadURL(path), method: .patch(body),
                                            authorized: true, retryScope: .never,
                                            headers: [tusHeader, "Upload-Offset: \(offset)", "Upload-Checksum: \(checksum.headerValue)"]))
        switch response.status {
        case 204, 200:
            guard let next = response.header("Upload-Offset").flatMap({ Int64($0) }) else {
                throw TransportError.badResponse(expected: "an Upload-Offset", detail: Self.describe(response))
            }
            return (.accepted(next), response.bytesSent)
        case 409: return (.offsetMismatch, response.bytesSent)
        case 460: return (.checksumMismatch, response.bytesSent)
        case 404, 410: return (.gone, response.bytesSent)
        default: throw failure(for: response, notFound: "the resumable upload")
        }
    }

    /// A Location as a path on this server; another host is refused (the token must not go there).
    private func uploadPath(_ location: String) throws -> String {
        let base = try url(.uploads)
        guard let resolved = URL(string: location, relativeTo: base)?.absoluteURL,
              resolved.scheme == base.scheme, resolved.host == base.host, resolved.port == base.port,
              resolved.path.hasPrefix(base.path + "/")
        else {
            throw TransportError.badResponse(expected: "a resumable upload on \(serverAddress)", detail: "Location: \(location)")
        }
        return resolved.path
    }

    private func uploadURL(_ path: String) throws -> URL {
        let base = try url(.uploads)
        guard path.hasPrefix(base.path + "/"), var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw TransportError.invalidURL(endpoint: path)
        }
        components.path = path
        guard let url = components.url else { throw TransportError.invalidURL(endpoint: path) }
        return url
    }
}
