import CLDAP
import Glibc

/// A failed libldap call: its result code, libldap's text for the code, and the server's
/// diagnostic message (`LDAP_OPT_DIAGNOSTIC_MESSAGE`, often the useful part).
public struct LDAPStatus: Error, Sendable, Equatable, CustomStringConvertible {
    /// An LDAP result code (RFC 4511) or a negative libldap client code such as -1
    /// (`LDAP_SERVER_DOWN`).
    public var code: Int32
    /// `ldap_err2string(code)`.
    public var message: String
    /// What the server (or libldap) said about this failure; may be empty.
    public var diagnostic: String
    /// `errno` after the failed call, 0 if none: for a connection that failed, the reason.
    public var systemError: Int32

    /// Creates a status from its parts; libldap failures are made inside MIDirectory.
    public init(code: Int32, message: String, diagnostic: String, systemError: Int32 = 0) {
        self.code = code
        self.message = message
        self.diagnostic = diagnostic
        self.systemError = systemError
    }

    init(code: Int32, diagnostic: String = "", systemError: Int32 = 0) {
        self.init(
            code: code, message: String(cString: ldap_err2string(code)), diagnostic: diagnostic,
            systemError: systemError)
    }

    /// The diagnostic if it says anything, else libldap's text for the code, with the code:
    /// `invalid password (49)`, `Connect error (-11)`.
    var detail: String {
        let useful = !diagnostic.isEmpty && diagnostic != "(unknown error code)"
        return "\(useful ? diagnostic : message) (\(code))"
    }

    /// e.g. `Invalid credentials (49): invalid password`.
    public var description: String {
        let text = "\(message) (\(code))"
        return diagnostic.isEmpty ? text : "\(text): \(diagnostic)"
    }

    /// The server could not be reached or did not answer in time; such failures say nothing
    /// about the credentials or the configuration.
    var isUnreachable: Bool {
        [LDAP_SERVER_DOWN, LDAP_TIMEOUT, LDAP_CONNECT_ERROR].contains(code)
    }

    /// Why the server could not be reached, in a technician's words: `timed out after 5 s`,
    /// `connection refused`, `no route to host`… libldap reports most of these as
    /// `LDAP_SERVER_DOWN`; the socket's errno tells them apart.
    func unreachableReason(timeoutSeconds: Int) -> String {
        if code == LDAP_TIMEOUT || systemError == ETIMEDOUT {
            return "timed out after \(timeoutSeconds) s"
        }
        // After a refused connect libldap probes the socket with getpeername(), which leaves
        // ENOTCONN behind.
        if systemError == ECONNREFUSED || systemError == ENOTCONN {
            return "connection refused"
        }
        if Self.networkErrors.contains(systemError) {
            return Self.sentenceFragment(String(cString: strerror(systemError)))
        }
        return Self.sentenceFragment(diagnostic.isEmpty ? message : diagnostic)
    }

    /// `Connection refused` → `connection refused`, to follow a colon.
    private static func sentenceFragment(_ text: String) -> String {
        text.prefix(1).lowercased() + text.dropFirst()
    }

    /// errno values that describe a failed connection (others may be left over from
    /// unrelated calls inside libldap, such as reading configuration files).
    static let networkErrors: Set<Int32> = [
        ECONNREFUSED, ENOTCONN, ETIMEDOUT, ECONNRESET, ECONNABORTED, ENETUNREACH, EHOSTUNREACH,
        ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL, EPIPE,
    ]
}
