import Foundation

/// `HOST:PORT`, `HOST` (the default port), or `[IPv6]:PORT`, as Config.plist writes a service's
/// address (`Location.GPSD`). The one reading of such text: the configuration loader checks it
/// with this, and MIDevices' `GPSDAddress` is made from it.
public enum HostPortText {
    /// The host and port, or why the text is not an address.
    public static func parse(_ text: String, defaultPort: UInt16) -> Result<(host: String, port: UInt16), Problem> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return .failure(Problem("it is empty")) }
        guard trimmed.utf8.count <= 255, trimmed.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 }) else {
            return .failure(Problem("a host name is ASCII letters, digits, dots and dashes"))
        }
        var host = Substring(trimmed)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return .failure(Problem("an IPv6 address in [ ] is not closed")) }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return .failure(Problem("expected :PORT after the ]")) }
                portText = rest.dropFirst()
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon else { return .failure(Problem("write an IPv6 address in brackets: [::1]:2947")) }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { return .failure(Problem("the host is missing (e.g. 127.0.0.1:2947)")) }
        var port = defaultPort
        if let portText {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (48...57).contains($0) }),
                  let number = Int(portText), (1...65535).contains(number) else {
                return .failure(Problem("the port \"\(portText)\" is not a number from 1 to 65535"))
            }
            port = UInt16(number)
        }
        return .success((String(host), port))
    }

    /// Why a text is not an address.
    public struct Problem: Error, Sendable, Equatable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
    }
}
