import MIKit

/// Why no position came from gpsd. Each message names the address, so that a wrong
/// `Location.GPSD` is seen at once.
public enum GPSDError: ClassifiedError, Equatable {
    /// `Location.GPSD` (or an option) cannot be read as `HOST:PORT`.
    case invalidAddress(String, reason: String)
    /// The connection was refused: nothing listens there.
    case notListening(GPSDAddress)
    /// The host is unknown, unreachable, or did not answer the connection in time.
    case unreachable(GPSDAddress, reason: String)
    /// gpsd answered but gave no fix (or none accurate enough) before the timeout.
    case noFix(GPSDAddress, seconds: Int, detail: String)
    /// The peer sent something that is not gpsd's JSON protocol.
    case malformed(GPSDAddress, detail: String)
    /// gpsd answered with its own ERROR report.
    case refused(GPSDAddress, message: String)
    /// gpsd closed the connection before a fix.
    case closed(GPSDAddress)

    public var failureClass: FailureClass {
        switch self {
        case .invalidAddress: return .configuration
        case .notListening, .unreachable, .noFix, .closed: return .unreachable
        case .malformed, .refused: return .refused
        }
    }

    public var code: String {
        switch self {
        case .invalidAddress: return "gpsd-address-invalid"
        case .notListening: return "gpsd-not-listening"
        case .unreachable: return "gpsd-unreachable"
        case .noFix: return "gps-no-fix"
        case .malformed: return "gpsd-malformed"
        case .refused: return "gpsd-refused"
        case .closed: return "gpsd-closed"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .invalidAddress(let text, let reason):
            return "the gpsd address \"\(SafeName.printable(String(text.prefix(80))))\" cannot be used: \(reason) — write HOST:PORT, e.g. 127.0.0.1:2947"
        case .notListening(let address):
            return "nothing is listening on \(address) — is gpsd running? (Debian's gpsd package; Location.GPSD in Config.plist says where it listens)"
        case .unreachable(let address, let reason):
            return "gpsd at \(address) cannot be reached: \(reason)"
        case .noFix(let address, let seconds, let detail):
            return "no GPS fix from gpsd at \(address) within \(seconds) s: \(detail)"
        case .malformed(let address, let detail):
            return "\(address) does not speak gpsd's JSON protocol: \(detail) — is Location.GPSD the address of gpsd?"
        case .refused(let address, let message):
            return "gpsd at \(address) refused: \(SafeName.printable(String(message.prefix(200))))"
        case .closed(let address):
            return "gpsd at \(address) closed the connection before a fix"
        }
    }
}
