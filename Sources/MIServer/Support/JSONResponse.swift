import Foundation
import Hummingbird
import MIKit

/// JSON responses encoded one way everywhere: the API's `WireJSON`.
enum JSONResponse {
    static func make(_ status: HTTPResponse.Status, _ value: some Encodable, headers: HTTPFields = [:]) throws -> Response {
        let data = try WireJSON.encoder().encode(value)
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        fields.append(contentsOf: headers)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An error response: `status` with the API's error body `{"error": {"message": …}}`.
    static func error(_ status: HTTPResponse.Status, message: String, code: String? = nil, headers: HTTPFields = [:]) throws -> Response {
        try make(status, APIErrorBody(message: message, code: code), headers: headers)
    }

    /// The error body's bytes, for answers written below the router (channel handlers).
    static func errorBytes(message: String) -> ByteBuffer {
        let data = (try? WireJSON.encoder().encode(APIErrorBody(message: message))) ?? Data("{\"error\":{\"message\":\"\"}}".utf8)
        return ByteBuffer(bytes: data)
    }
}
