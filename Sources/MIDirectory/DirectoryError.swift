import Foundation
import MIKit

/// Why a directory operation failed, worded for the technician at the terminal.
public enum DirectoryError: ClassifiedError, Equatable {
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
    /// The server refused the StartTLS operation (it offers no TLS).
    case startTLSFailed(url: String, status: LDAPStatus)
    /// The TLS handshake (StartTLS or ldaps://) failed, most often because the server's
    /// certificate is not signed by a trusted CA or does not name the host in the URL.
    case tlsHandshakeFailed(url: String, status: LDAPStatus)
    /// The directory refused `LDAP.BindDN` and its password.
    case serviceAccountRefused(bindDN: String, status: LDAPStatus)
    /// No `LDAP.BindDN` is configured and the directory refuses anonymous binds.
    case anonymousBindRefused(status: LDAPStatus)
    /// `LDAP.UserFilter` matched more than one entry for one user name.
    case ambiguousUser(user: String, entries: Int)
    /// `LDAP.ForemanGroup` does not exist or the service account cannot read it.
    case foremanGroupNotFound(dn: String, status: LDAPStatus?)
    /// `LDAP.AdminGroup` is configured but does not exist or the service account cannot read it.
    case adminGroupNotFound(dn: String, status: LDAPStatus?)
    /// A setting is missing or malformed; the text names the Config.plist key.
    case invalidConfiguration(String)
    /// Any other refusal by the directory.
    case operationFailed(operation: String, status: LDAPStatus)

    /// The class of the failure: wrong credentials are `notPermitted`, a directory that cannot
    /// be reached `unreachable` (try again), TLS and settings problems `configuration`.
    public var failureClass: FailureClass {
        switch self {
        case .invalidUserName, .emptyPassword, .wrongUserNameOrPassword:
            return .notPermitted
        case .unreachable:
            return .unreachable
        case .startTLSFailed, .tlsHandshakeFailed, .serviceAccountRefused, .anonymousBindRefused, .ambiguousUser,
             .foremanGroupNotFound, .adminGroupNotFound, .invalidConfiguration:
            return .configuration
        case .operationFailed:
            return .refused
        }
    }

    /// A stable identifier of the case, for scripts.
    public var code: String {
        switch self {
        case .invalidUserName: return "invalid-user-name"
        case .emptyPassword: return "empty-password"
        case .wrongUserNameOrPassword: return "wrong-credentials"
        case .unreachable: return "directory-unreachable"
        case .startTLSFailed: return "directory-starttls-failed"
        case .tlsHandshakeFailed: return "directory-tls-failed"
        case .serviceAccountRefused: return "directory-service-account-refused"
        case .anonymousBindRefused: return "directory-anonymous-bind-refused"
        case .ambiguousUser: return "directory-ambiguous-user"
        case .foremanGroupNotFound: return "directory-foreman-group-not-found"
        case .adminGroupNotFound: return "directory-admin-group-not-found"
        case .invalidConfiguration: return "directory-configuration"
        case .operationFailed: return "directory-refused"
        }
    }

    /// One sentence: what happened, a dash, what to do.
    public var errorDescription: String? {
        "\(problem) — \(advice)"
    }

    private var problem: String {
        switch self {
        case .invalidUserName(let name):
            "user name \(Self.quoted(name)) is not a valid directory name"
        case .emptyPassword:
            "empty password"
        case .wrongUserNameOrPassword:
            "wrong user name or password"
        case .unreachable(let url, let reason, _):
            "directory unreachable at \(url): \(reason)"
        case .startTLSFailed(let url, let status):
            "StartTLS failed at \(url): \(status.detail)"
        case .tlsHandshakeFailed(let url, let status):
            "TLS handshake with \(url) failed: \(status.detail)"
        case .serviceAccountRefused(let bindDN, let status):
            "the service account (LDAP.BindDN) was refused: \(status.detail) for \(bindDN)"
        case .anonymousBindRefused(let status):
            "the directory refuses anonymous searches: \(status.detail)"
        case .ambiguousUser(let user, let entries):
            "user name \(Self.quoted(user)) matches \(entries) directory entries"
        case .foremanGroupNotFound(let dn, let status):
            "the foremen's group \(dn) was not found" + (status.map { " (\($0.detail))" } ?? "")
        case .adminGroupNotFound(let dn, let status):
            "the template publishers' group \(dn) was not found" + (status.map { " (\($0.detail))" } ?? "")
        case .invalidConfiguration(let problem):
            problem
        case .operationFailed(let operation, let status):
            "the directory refused to \(operation): \(status.detail)"
        }
    }

    private var advice: String {
        switch self {
        case .invalidUserName:
            "type the user name you were given, without spaces at the ends or characters such as /"
        case .emptyPassword:
            "type your directory password"
        case .wrongUserNameOrPassword:
            "check both (and Caps Lock) and try again"
        case .unreachable:
            "check the network connection and LDAP.URL, then try again"
        case .startTLSFailed:
            "the directory must offer TLS, or set LDAP.StartTLS to false"
        case .tlsHandshakeFailed:
            "set LDAP.CAFile to the CA that signed the directory's certificate, "
                + "and use a host name in LDAP.URL that the certificate names"
        case .serviceAccountRefused:
            "ask the administrator to check LDAP.BindDN and LDAP.BindPasswordFile"
        case .anonymousBindRefused:
            "ask the administrator to set LDAP.BindDN and LDAP.BindPasswordFile"
        case .ambiguousUser:
            "ask the administrator to make LDAP.UserFilter match one entry per user"
        case .foremanGroupNotFound:
            "ask the administrator to check LDAP.ForemanGroup and that the service account may read it"
        case .adminGroupNotFound:
            "ask the administrator to check LDAP.AdminGroup (or remove it to let foremen publish) and that the service account may read it"
        case .invalidConfiguration:
            "ask the administrator to fix the LDAP settings in Config.plist"
        case .operationFailed:
            "try again, and tell the administrator if it keeps failing"
        }
    }

    /// A user name as typed, with control characters made visible.
    private static func quoted(_ name: String) -> String {
        String(reflecting: name)
    }
}
