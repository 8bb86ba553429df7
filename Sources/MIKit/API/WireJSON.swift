import Foundation

/// The JSON coding of the HTTP API, on both ends: ISO 8601 dates in UTC (fractional seconds
/// accepted when reading), sorted keys, unescaped slashes.
public enum WireJSON {
    /// A decoder for request and response bodies.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            throw DecodingError.dataCorruptedError(in: container,
                                                   debugDescription: "expected an ISO 8601 date, found \"\(text)\"")
        }
        return decoder
    }

    /// An encoder for request and response bodies.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
