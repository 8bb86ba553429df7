import CLDAP

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

    public init(code: Int32, message: String, diagnostic: String) {
        self.code = code
        self.message = message
        self.diagnostic = diagnostic
    }

    init(code: Int32, diagnostic: String = "") {
        self.init(code: code, message: String(cString: ldap_err2string(code)), diagnostic: diagnostic)
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
}
