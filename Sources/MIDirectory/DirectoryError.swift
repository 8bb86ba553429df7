import Foundation

/// Why a directory operation failed, worded for the technician at the terminal.
public enum DirectoryError: Error, LocalizedError, Equatable {
    /// The user name is empty, longer than 256 bytes, or holds a control character or `/`;
    /// refused before any connection.
    case invalidUserName(String)
    /// Refused before any bind: an empty password is an unauthenticated bind, which some
    /// servers accept as a success (RFC 4513 §5.1.2).
    case emptyPassword
    /// No entry matches the user name, or the directory refused the password. The two are
    /// deliberately not told apart.
    case wrongUserNameOrPassword
    /// No connection, or no answer within the timeout. `reason` is e.g. `timed out after 5 s`
    /// or `connection refused`.
    case unreachable(url: String, reason: String, status: LDAPStatus)
    /// The server refused StartTLS or its certificate failed verification.
    case startTLSFailed(url: String, status: LDAPStatus)
    /// The directory refused `LDAP.BindDN` and its password.
    case serviceAccountRefused(bindDN: String, status: LDAPStatus)
    /// No `LDAP.BindDN` is configured and the directory refuses anonymous binds.
    case anonymousBindRefused(status: LDAPStatus)
    /// `LDAP.UserFilter` matched more than one entry for one user name.
    case ambiguousUser(user: String, entries: Int)
    /// `LDAP.ForemanGroup` does not exist or the service account cannot read it.
    case foremanGroupNotFound(dn: String, status: LDAPStatus?)
    /// A setting is missing or malformed; the text names the Config.plist key.
    case invalidConfiguration(String)
    /// Any other refusal by the directory.
    case operationFailed(operation: String, status: LDAPStatus)

    public var errorDescription: String? {
        switch self {
        case .invalidUserName(let name):
            "user name \(Self.quoted(name)) is not a valid directory name — type the user name you were given, without spaces at the ends or special characters such as /"
        case .emptyPassword:
            "empty password — type your directory password"
        case .wrongUserNameOrPassword:
            "wrong user name or password — check both (and Caps Lock) and try again"
        case .unreachable(let url, let reason, _):
            "directory unreachable at \(url): \(reason) — check the network connection and LDAP.URL, then try again"
        case .startTLSFailed(let url, let status):
            "StartTLS failed at \(url): \(Self.detail(status)) — the directory must offer TLS, or set LDAP.StartTLS to false"
        case .serviceAccountRefused(let bindDN, let status):
            "the service account (LDAP.BindDN) was refused: \(bindDN): \(Self.detail(status)) — ask the administrator to check LDAP.BindDN and LDAP.BindPasswordFile"
        case .anonymousBindRefused(let status):
            "the directory refuses anonymous searches: \(Self.detail(status)) — ask the administrator to set LDAP.BindDN and LDAP.BindPasswordFile"
        case .ambiguousUser(let user, let entries):
            "user name \(Self.quoted(user)) matches \(entries) directory entries — ask the administrator to make LDAP.UserFilter match one entry per user"
        case .foremanGroupNotFound(let dn, let status):
            "the foremen's group \(dn) was not found\(status.map { " (\(Self.detail($0)))" } ?? "") — ask the administrator to check LDAP.ForemanGroup and that the service account may read it"
        case .invalidConfiguration(let problem):
            "\(problem) — ask the administrator to fix the LDAP settings in Config.plist"
        case .operationFailed(let operation, let status):
            "the directory refused to \(operation): \(Self.detail(status)) — try again, and tell the administrator if it keeps failing"
        }
    }

    /// The server's own words when it gave any, else libldap's text for the code.
    private static func detail(_ status: LDAPStatus) -> String {
        status.diagnostic.isEmpty ? "\(status.message) (\(status.code))" : "\(status.diagnostic) (\(status.code))"
    }

    /// A user name as typed, with control characters made visible.
    private static func quoted(_ name: String) -> String {
        String(reflecting: name)
    }
}
