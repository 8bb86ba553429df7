import Hummingbird
import MIKit

/// The pictures a template's questions show, served alike to the API and the office pages.
enum TemplateFiles {
    /// The response for file `name` of template `id`: the API and the office pages serve it alike.
    static func response(id: String, name: String, catalog: TemplateCatalog) async throws -> Response {
        switch try await Blocking.run({ catalog.file(id: id, name: name) }) {
        case .success(let file):
            return Response(status: .ok, headers: [.contentType: file.contentType, .eTag: "\"\(file.sha256)\"",
                                                   .cacheControl: "private, no-cache"],
                            body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
        case .failure(.notNamed):
            throw HTTPError(.notFound, message: "template \"\(SafeName.printable(id))\" has no file \"\(SafeName.printable(name))\" — the files a template shows are named by its questions' image")
        case .failure(.missing):
            throw HTTPError(.notFound, message: "the file \"\(SafeName.printable(name))\" of template \"\(SafeName.printable(id))\" is missing on the server — tell the administrator to copy it into the template's folder")
        }
    }
}
