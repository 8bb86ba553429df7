import Crypto
import Foundation
import Hummingbird
import MIKit
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// One part as received and stored under `incoming/<uuid>/`.
struct ReceivedPart: Sendable, Equatable {
    var name: String
    var filename: String
    /// The file's name in the folder: `form.json` for the form part, else the part name.
    var fileName: String
    var size: Int64
    var sha256: String
}

/// Receives a multipart/form-data body incrementally (`MultipartStreamParser`) and writes
/// each part straight to its file in `folder` while hashing it: a part is never held in memory.
///
/// Not thread-safe by itself: one upload's task drives it, one blocking call at a time, each
/// awaited before the next (so calls are ordered even when they run on different threads of
/// the thread pool). That is why it can be `@unchecked Sendable`.
final class MultipartReceiver: MultipartStreamHandler, @unchecked Sendable {
    /// The form part is decoded in memory, so it is kept small.
    static let maximumFormBytes: Int64 = 16 << 20

    private struct OpenPart {
        var name: String
        var filename: String
        var fileName: String
        var fd: Int32
        var size: Int64
        var hasher: SHA256
    }

    private let parser: MultipartStreamParser
    private let folder: URL
    private var current: OpenPart?
    private(set) var parts: [ReceivedPart] = []

    init(boundary: String, folder: URL) {
        self.parser = MultipartStreamParser(boundary: boundary)
        self.folder = folder
    }

    deinit {
        if let current { close(current.fd) }
    }

    /// The boundary of a `multipart/form-data` Content-Type, or a 400 saying what is wrong.
    static func boundary(contentType: String?) throws -> String {
        guard let contentType, let header = HeaderParameters(contentType), header.value == "multipart/form-data" else {
            throw UploadError(.refused, "an upload must be multipart/form-data (got \(contentType ?? "no Content-Type")) — use `mi upload`")
        }
        guard let boundary = header.parameters["boundary"], !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw UploadError(.refused, "the multipart Content-Type has no usable boundary — use `mi upload`")
        }
        return boundary
    }

    /// Feeds body bytes through the parser. Blocking (file writes): run it on the thread pool.
    func consume(_ buffers: [ByteBuffer]) throws {
        do {
            for buffer in buffers { try parser.feed(buffer, to: self) }
        } catch let error as MultipartSyntaxError {
            throw Self.malformed(error.problem)
        }
    }

    /// Checks the body ended with its closing boundary, and syncs the folder (each file was
    /// synced as its part ended).
    func finish() throws -> [ReceivedPart] {
        do {
            try parser.finish()
        } catch let error as MultipartSyntaxError {
            throw Self.malformed(error.problem)
        }
        guard !parts.isEmpty else { throw Self.malformed("the body holds no parts") }
        try DurableFile.syncFolder(folder)
        return parts
    }

    static func malformed(_ problem: String) -> UploadError {
        UploadError(.refused, "the upload is not valid multipart/form-data: \(problem) — send it again with `mi upload`")
    }

    // MARK: - Parts

    func partBegins(headers: [(name: String, value: String)]) throws {
        current = try startPart(headers: headers)
    }

    func partBody(_ bytes: UnsafeRawBufferPointer) throws {
        try write(bytes)
    }

    func partEnds() throws {
        try completePart()
    }

    private func startPart(headers: [(name: String, value: String)]) throws -> OpenPart {
        guard let disposition = headers.last(where: { $0.name.lowercased() == "content-disposition" })?.value,
              let parameters = HeaderParameters(disposition), parameters.value == "form-data",
              let name = parameters.parameters["name"]
        else {
            throw Self.malformed("part \(parts.count + 1) has no Content-Disposition: form-data with a name")
        }
        let fileName: String
        if name == UploadPart.formName {
            fileName = UploadPart.formFilename
        } else {
            if let reason = SafeName.problem(name) {
                throw UploadError(.refused, "media part \"\(SafeName.printable(name))\" cannot be stored: \(reason) — rename the media file")
            }
            guard name != UploadPart.formFilename else {
                throw UploadError(.refused, "a media part may not be called \(UploadPart.formFilename) — rename the media file")
            }
            // The form comes first, so a refused form costs no media bytes on disk.
            guard parts.contains(where: { $0.name == UploadPart.formName }) else {
                throw UploadError(.refused, "media part \"\(SafeName.printable(name))\" comes before the \"\(UploadPart.formName)\" part, or there is none — send \(UploadPart.formFilename) first, as the part named \"\(UploadPart.formName)\" (use `mi upload`)")
            }
            if let filename = parameters.parameters["filename"], !filename.isEmpty, filename != name {
                throw UploadError(.refused, "media part \"\(SafeName.printable(name))\" has the filename \"\(SafeName.printable(filename))\" — a media part's filename must be its part name (use `mi upload`)")
            }
            fileName = name
        }
        guard !parts.contains(where: { $0.name == name }) else {
            throw UploadError(.refused, "part \"\(SafeName.printable(name))\" is sent twice — send each media file once")
        }
        let path = folder.appendingPathComponent(fileName).path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServerSetupError.storage(operation: "create", path: path, reason: String(cString: strerror(errno)))
        }
        let filename = parameters.parameters["filename"].flatMap { $0.isEmpty ? nil : $0 } ?? fileName
        return OpenPart(name: name, filename: filename, fileName: fileName, fd: fd, size: 0, hasher: SHA256())
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var part = current else { return }
        current = nil
        defer { current = part }
        let count = Int64(bytes.count)
        if part.name == UploadPart.formName, part.size + count > Self.maximumFormBytes {
            throw UploadError(.refused, "the form part is larger than \(Self.maximumFormBytes >> 20) MiB — it must be the form's form.json")
        }
        part.hasher.update(bufferPointer: bytes)
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(part.fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ServerSetupError.storage(operation: "write", path: folder.appendingPathComponent(part.fileName).path,
                                               reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        part.size += count
    }

    private func completePart() throws {
        guard let part = current else { return }
        current = nil
        let path = folder.appendingPathComponent(part.fileName).path
        let synced = fsync(part.fd) == 0
        let syncError = errno
        let closed = close(part.fd) == 0
        guard synced, closed else {
            throw ServerSetupError.storage(operation: "store", path: path, reason: String(cString: strerror(synced ? errno : syncError)))
        }
        parts.append(ReceivedPart(name: part.name, filename: part.filename, fileName: part.fileName, size: part.size,
                                  sha256: Hex.lowercase(part.hasher.finalize())))
    }
}
