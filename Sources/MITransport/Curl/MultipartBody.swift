import CCurl
import Foundation
import MIKit

/// A `multipart/form-data` body built with libcurl's MIME API (freed in `deinit`). File parts use
/// `curl_mime_filedata`, so libcurl reads each file from disk while sending: memory stays flat
/// whatever the files' sizes.
final class MultipartBody {
    private(set) var mime: OpaquePointer?
    /// The files' total size in bytes (the body is a little larger: boundaries and part headers).
    let fileBytes: Int64

    /// One MIME part per upload part, in order. The part named `form` is sent as `form.json` (`application/json`);
    /// every other part's filename is its part name (`application/octet-stream`).
    init(easy: CurlEasy, parts: [UploadPart]) throws {
        var total: Int64 = 0
        for part in parts {
            total += try Self.readableSize(of: part.file)
        }
        fileBytes = total
        guard let mime = curl_mime_init(easy.handle) else {
            throw TransportError.libcurl(detail: "curl_mime_init failed (out of memory?)")
        }
        self.mime = mime
        for file in parts {
            guard let part = curl_mime_addpart(mime) else {
                throw TransportError.libcurl(detail: "curl_mime_addpart failed (out of memory?)")
            }
            try check(curl_mime_name(part, file.name), easy, "curl_mime_name")
            // filedata first: it sets the filename to the file's base name, which curl_mime_filename then replaces.
            try check(curl_mime_filedata(part, file.file.path), easy, "curl_mime_filedata")
            try check(curl_mime_filename(part, file.isForm ? UploadPart.formFilename : file.name), easy,
                      "curl_mime_filename")
            try check(curl_mime_type(part, file.isForm ? "application/json" : "application/octet-stream"), easy,
                      "curl_mime_type")
        }
    }

    deinit { curl_mime_free(mime) }

    private func check(_ code: CURLcode, _ easy: CurlEasy, _ what: String) throws {
        guard code != CURLE_OK else { return }
        throw TransportError.libcurl(detail: "\(what) failed: \(easy.describe(code))")
    }

    /// The size of a regular file that can be opened for reading, or `unreadableFile`.
    private static func readableSize(of url: URL) throws -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw TransportError.unreadableFile(path: url.path, detail: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw TransportError.unreadableFile(path: url.path, detail: "not a regular file")
        }
        guard access(url.path, R_OK) == 0 else {
            throw TransportError.unreadableFile(path: url.path, detail: String(cString: strerror(errno)))
        }
        return Int64(info.st_size)
    }
}
