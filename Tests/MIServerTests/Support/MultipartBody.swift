import Foundation

/// A multipart/form-data body as `mi upload` sends it.
struct MultipartBody {
    struct Part {
        var name: String
        /// Nil for a plain field (a form's hidden input).
        var filename: String?
        var contentType: String?
        var data: Data
    }

    var boundary = "mi-test-" + UUID().uuidString
    var parts: [Part] = []

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func add(form data: Data) {
        parts.append(Part(name: "form", filename: "form.json", contentType: "application/json", data: data))
    }

    mutating func add(media name: String, data: Data) {
        parts.append(Part(name: name, filename: name, contentType: "application/octet-stream", data: data))
    }

    var data: Data {
        var body = Data()
        for part in parts {
            body.append(Data("--\(boundary)\r\n".utf8))
            let filename = part.filename.map { "; filename=\"\($0)\"" } ?? ""
            body.append(Data("Content-Disposition: form-data; name=\"\(part.name)\"\(filename)\r\n".utf8))
            if let contentType = part.contentType { body.append(Data("Content-Type: \(contentType)\r\n".utf8)) }
            body.append(Data("\r\n".utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }
}
