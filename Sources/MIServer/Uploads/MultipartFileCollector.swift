import Foundation
import Hummingbird

/// Collects the files of a small `multipart/form-data` form in memory (the office's template
/// upload): the parts named `field`, with their filenames (an XLSForm and its CSVs are several);
/// other parts (a CSRF field) are kept as text. More than `limit` bytes in all is refused before it is held.
final class MultipartFileCollector: MultipartStreamHandler {
    struct File { var filename: String; var data: Data }

    let field: String
    let limit: Int
    /// The parts named `field`, in the order sent.
    private(set) var files: [File] = []
    /// The first of them.
    var file: File? { files.first }
    /// The text of the other fields, by name.
    private(set) var fields: [String: String] = [:]
    private var current: (name: String, filename: String?, data: Data)?
    private var total = 0

    init(field: String, limit: Int) {
        self.field = field
        self.limit = limit
    }

    func partBegins(headers: [(name: String, value: String)]) throws {
        let disposition = headers.first { $0.name.lowercased() == "content-disposition" }.flatMap { HeaderParameters($0.value) }
        guard let disposition, disposition.value == "form-data", let name = disposition.parameters["name"] else {
            throw MultipartSyntaxError(problem: "a part has no Content-Disposition: form-data with a name")
        }
        current = (name, disposition.parameters["filename"], Data())
    }

    func partBody(_ bytes: UnsafeRawBufferPointer) throws {
        total += bytes.count
        guard total <= limit else { throw MultipartSyntaxError(problem: "the form is larger than \(limit >> 20) MiB") }
        current?.data.append(contentsOf: bytes)
    }

    func partEnds() throws {
        guard let part = current else { return }
        current = nil
        if part.name == field {
            files.append(File(filename: part.filename ?? "", data: part.data))
        } else {
            fields[part.name] = String(decoding: part.data, as: UTF8.self)
        }
    }

    /// Feeds the whole body through a parser for `boundary`.
    func collect(_ body: RequestBody, boundary: String) async throws {
        let parser = MultipartStreamParser(boundary: boundary)
        for try await buffer in body { try parser.feed(buffer, to: self) }
        try parser.finish()
    }
}
