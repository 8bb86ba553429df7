import Foundation
import MIKit

/// Where gpsd listens: `HOST:PORT`, `HOST` (port 2947), or `[IPv6]:PORT`, as Config.plist's
/// `Location.GPSD` says it. The default is the local gpsd, `127.0.0.1:2947`.
public struct GPSDAddress: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    public static let defaultPort: UInt16 = 2947
    public static let local = GPSDAddress(host: "127.0.0.1", port: defaultPort)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`; the error says what is wrong with the text.
    public init(_ text: String) throws(GPSDError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func invalid(_ reason: String) -> GPSDError { .invalidAddress(text, reason: reason) }
        guard !trimmed.isEmpty else { throw invalid("it is empty") }
        guard trimmed.utf8.count <= 255, trimmed.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 }) else {
            throw invalid("a host name is ASCII letters, digits, dots and dashes")
        }
        var host = Substring(trimmed)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw invalid("an IPv6 address in [ ] is not closed") }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("expected :PORT after the ]") }
                portText = rest.dropFirst()
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon else { throw invalid("write an IPv6 address in brackets: [::1]:2947") }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw invalid("the host is missing (e.g. 127.0.0.1:2947)") }
        var port = Self.defaultPort
        if let portText {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (48...57).contains($0) }),
                  let number = Int(portText), (1...65535).contains(number) else {
                throw invalid("the port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = UInt16(number)
        }
        self.init(host: String(host), port: port)
    }

    /// `127.0.0.1:2947`, `[::1]:2947`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
