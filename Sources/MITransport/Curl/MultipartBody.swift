import CCurl
import Foundation
import MIKit

/// A `multipart/form-data` body built with libcurl's MIME API (freed in `deinit`). Each file part
/// is fed by `curl_mime_data_cb` from a `HashingFileReader`: libcurl reads the file from disk
/// while sending, and the SHA-256 is computed from the bytes it reads — one pass over every byte,
/// memory flat whatever the files' sizes.
final class MultipartBody {
    private(set) var mime: OpaquePointer?
    /// The files' total size in bytes (the body is a little larger: boundaries and part headers).
    let fileBytes: Int64
    /// One source per part, in order.
    let sources: [PartSource]

    /// One MIME part per upload part, in order. The part named `form` is sent as `form.json` (`application/json`);
    /// every other part's filename is its part name (`application/octet-stream`).
    init(easy: CurlEasy, parts: [UploadPart]) throws {
        var sources: [PartSource] = []
        for part in parts {
            do {
                sources.append(PartSource(reader: try HashingFileReader(name: part.name, url: part.file)))
            } catch {
                throw TransportError.unreadableFile(path: part.file.path, detail: Self.reason(error))
            }
        }
        self.sources = sources
        fileBytes = sources.reduce(0) { $0 + $1.reader.size }
        guard let mime = curl_mime_init(easy.handle) else {
            throw TransportError.libcurl(detail: "curl_mime_init failed (out of memory?)")
        }
        self.mime = mime
        for (file, source) in zip(parts, sources) {
            guard let part = curl_mime_addpart(mime) else {
                throw TransportError.libcurl(detail: "curl_mime_addpart failed (out of memory?)")
            }
            try check(curl_mime_name(part, file.name), easy, "curl_mime_name")
            try check(curl_mime_data_cb(part, curl_off_t(source.reader.size), PartSource.read, PartSource.seek, nil,
                                        source.opaque), easy, "curl_mime_data_cb")
            try check(curl_mime_filename(part, file.isForm ? UploadPart.formFilename : file.name), easy,
                      "curl_mime_filename")
            try check(curl_mime_type(part, file.isForm ? "application/json" : "application/octet-stream"), easy,
                      "curl_mime_type")
        }
    }

    deinit { curl_mime_free(mime) }

    /// The first error a source met (a file unreadable or changed while it was sent).
    var sourceError: (any Error)? { sources.lazy.compactMap(\.error).first }

    private func check(_ code: CURLcode, _ easy: CurlEasy, _ what: String) throws {
        guard code != CURLE_OK else { return }
        throw TransportError.libcurl(detail: "\(what) failed: \(easy.describe(code))")
    }

    private static func reason(_ error: StoreError) -> String {
        if case .io(_, _, let reason) = error { return reason }
        return error.localizedDescription
    }
}

/// One file part's bytes for libcurl's read callback: hashed as read; the digest (or why there
/// is none) is kept once the last byte was read.
final class PartSource {
    let reader: HashingFileReader
    /// Set when every byte was read and the file had not changed.
    private(set) var digest: PartDigest?
    /// Set when reading failed or the file changed; the transfer was aborted.
    private(set) var error: (any Error)?

    init(reader: HashingFileReader) { self.reader = reader }

    /// The digest once the transfer read every byte (an empty file is never asked for any).
    func completedDigest() -> PartDigest? {
        if digest == nil, error == nil, reader.bytesRead == reader.size { digest = try? reader.finish() }
        return digest
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> PartSource? {
        pointer.map { Unmanaged<PartSource>.fromOpaque($0).takeUnretainedValue() }
    }

    /// `curl_read_callback`: fills libcurl's buffer; at the end, checks and keeps the digest.
    static let read: curl_read_callback = { buffer, size, count, context in
        guard let source = PartSource.from(context), let buffer else { return Int(CURL_READFUNC_ABORT) }
        do {
            let read = try source.reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            if source.digest == nil, read == 0 || source.reader.bytesRead == source.reader.size {
                source.digest = try source.reader.finish()
            }
            return read
        } catch {
            source.error = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// `curl_seek_callback`: libcurl rewinds a body it must send again (only ever to the start).
    static let seek: curl_seek_callback = { context, offset, origin in
        guard let source = PartSource.from(context), offset == 0, origin == SEEK_SET else {
            return CURL_SEEKFUNC_CANTSEEK
        }
        do {
            try source.reader.rewind()
            source.digest = nil
            return CURL_SEEKFUNC_OK
        } catch {
            source.error = error
            return CURL_SEEKFUNC_FAIL
        }
    }
}
