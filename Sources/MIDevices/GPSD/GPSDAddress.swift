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

    /// Reads `HOST:PORT` (MIKit's `HostPortText`, as the configuration loader checks it); the
    /// error says what is wrong with the text.
    public init(_ text: String) throws(GPSDError) {
        switch HostPortText.parse(text, defaultPort: Self.defaultPort) {
        case .success(let address): self.init(host: address.host, port: address.port)
        case .failure(let problem): throw .invalidAddress(text, reason: problem.reason)
        }
    }

    /// `127.0.0.1:2947`, `[::1]:2947`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
