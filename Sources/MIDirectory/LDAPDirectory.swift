import CLDAP
import Foundation
import MIKit

/// `DirectoryService` over LDAP with libldap: search-then-bind, roles from group membership.
///
/// Every call opens its own connections (libldap handles are not thread-safe) and closes them
/// before returning, so the value can be shared freely.
public struct LDAPDirectory: DirectoryService {
    /// The settings every call uses; checked at each call, before any connection.
    public let configuration: DirectoryConfiguration

    /// Creates the service; nothing is contacted until the first call.
    public init(configuration: DirectoryConfiguration) {
        self.configuration = configuration
    }

    /// Search-then-bind (RFC 4513 §5.1.2 and the mistakes in RELIABILITY.md avoided): the
    /// service account finds exactly one entry for the escaped user name, then a separate
    /// connection binds as that entry's DN with `password`. The role is read afterwards with
    /// the service account, since users often may not read groups.
    public func authenticate(user: String, password: String) throws -> DirectoryUser {
        try LoginInput.check(userName: user)
        try LoginInput.check(password: password)
        try configuration.validate()
        let service = try serviceConnection()
        guard let entry = try findUser(user, on: service) else {
            throw DirectoryError.wrongUserNameOrPassword
        }
        try verify(password: password, of: entry)
        return try makeUser(entry, typedName: user, groups: groups(on: service))
    }

    /// Finds `user` with the service account, with their role; nil when no entry matches.
    public func lookup(user: String) throws -> DirectoryUser? {
        try LoginInput.check(userName: user)
        try configuration.validate()
        let service = try serviceConnection()
        guard let entry = try findUser(user, on: service) else { return nil }
        return try makeUser(entry, typedName: user, groups: groups(on: service))
    }

    /// Every user `LDAP.UserFilter` matches with `%s` = `*`, with roles, sorted by user name.
    /// Entries without a `uid` are left out: they have no user name to log in with.
    public func listUsers() throws -> [DirectoryUser] {
        try configuration.validate()
        let service = try serviceConnection()
        let entries = try searchUsers(filter: LDAPFilter.allUsers(template: configuration.userFilter), on: service)
        let groups = try groups(on: service)
        return entries
            .compactMap { entry in entry.first("uid").map { makeUser(entry, userName: $0, groups: groups) } }
            .sorted { $0.userName < $1.userName }
    }

    // MARK: - Steps

    private static let userAttributes = ["uid", "displayName", "cn"]

    /// A connection bound as `LDAP.BindDN`, or anonymously when none is configured.
    private func serviceConnection() throws(DirectoryError) -> LDAPConnection {
        let connection = try connect()
        let bindDN = configuration.bindDN
        try attempt({ () throws(LDAPStatus) in
            try connection.bind(dn: bindDN, password: bindDN == nil ? "" : configuration.bindPassword ?? "")
        }, refused: { status in
            guard let bindDN else { return .anonymousBindRefused(status: status) }
            return .serviceAccountRefused(bindDN: bindDN, status: status)
        })
        return connection
    }

    /// A new handle with every option set, upgraded with StartTLS when configured. A failed
    /// StartTLS is an error: never carry on in plain text.
    private func connect() throws(DirectoryError) -> LDAPConnection {
        let configuration = configuration
        let connection = try attempt({ () throws(LDAPStatus) in
            try LDAPConnection(
                url: configuration.url, caFile: configuration.caFile, timeoutSeconds: configuration.timeoutSeconds)
        }, refused: { .operationFailed(operation: "set up a connection to \(configuration.url)", status: $0) })
        if configuration.startTLS {
            try attempt({ () throws(LDAPStatus) in try connection.startTLS() }, refused: {
                .startTLSFailed(url: configuration.url, status: $0)
            })
        }
        return connection
    }

    /// The one entry `LDAP.UserFilter` finds for `userName`; nil when there is none.
    private func findUser(_ userName: String, on connection: LDAPConnection) throws(DirectoryError) -> LDAPEntry? {
        let filter = LDAPFilter.user(userName, template: configuration.userFilter)
        let entries = try searchUsers(filter: filter, on: connection)
        guard entries.count <= 1 else {
            throw .ambiguousUser(user: userName, entries: entries.count)
        }
        return entries.first
    }

    private func searchUsers(filter: String, on connection: LDAPConnection) throws(DirectoryError) -> [LDAPEntry] {
        let baseDN = configuration.baseDN
        return try attempt({ () throws(LDAPStatus) in
            try connection.search(base: baseDN, scope: .subtree, filter: filter, attributes: Self.userAttributes)
        }, refused: { status in
            switch status.code {
            case LDAP_FILTER_ERROR:
                .invalidConfiguration("LDAP.UserFilter \"\(configuration.userFilter)\" is not a valid LDAP filter")
            case LDAP_NO_SUCH_OBJECT:
                .invalidConfiguration(
                    "LDAP.BaseDN \"\(baseDN)\" does not exist or the service account cannot read it")
            default:
                .operationFailed(operation: "search for users under \(baseDN)", status: status)
            }
        })
    }

    /// Binds as the DN the directory returned — never one built from what the user typed —
    /// on a connection of its own, so the service connection keeps its identity.
    private func verify(password: String, of entry: LDAPEntry) throws(DirectoryError) {
        let connection = try connect()
        try attempt({ () throws(LDAPStatus) in
            try connection.bind(dn: entry.dn, password: password)
        }, refused: { status in
            status.code == LDAP_INVALID_CREDENTIALS
                ? .wrongUserNameOrPassword
                : .operationFailed(operation: "check the password", status: status)
        })
    }

    /// The groups that give roles and rights: `LDAP.ForemanGroup`, and `LDAP.AdminGroup` when configured.
    private struct Groups {
        var foremen: GroupMembers
        var admins: GroupMembers?
    }

    private func groups(on connection: LDAPConnection) throws(DirectoryError) -> Groups {
        let foremen = try group(configuration.foremanGroup, named: "the foremen's group", on: connection) {
            .foremanGroupNotFound(dn: $0, status: $1)
        }
        guard let adminDN = configuration.adminGroup else { return Groups(foremen: foremen, admins: nil) }
        let admins = try group(adminDN, named: "the template publishers' group", on: connection) {
            .adminGroupNotFound(dn: $0, status: $1)
        }
        return Groups(foremen: foremen, admins: admins)
    }

    /// Reads a group with a base-scope search; it may lie outside `LDAP.BaseDN`.
    private func group(_ dn: String, named name: String, on connection: LDAPConnection,
                       notFound: (String, LDAPStatus?) -> DirectoryError) throws(DirectoryError) -> GroupMembers {
        let attribute = configuration.groupMemberAttribute
        let entries = try attempt({ () throws(LDAPStatus) in
            try connection.search(base: dn, scope: .base, filter: "(objectClass=*)", attributes: [attribute])
        }, refused: { status in
            [LDAP_NO_SUCH_OBJECT, LDAP_INVALID_DN_SYNTAX].contains(status.code)
                ? notFound(dn, status)
                : .operationFailed(operation: "read \(name) \(dn)", status: status)
        })
        guard let entry = entries.first else {
            throw notFound(dn, nil)
        }
        return GroupMembers(attribute: attribute, values: entry.values(attribute))
    }

    // MARK: - Results

    /// The user name is the directory's spelling: the `uid` value matching what was typed
    /// as the directory compares names (`UserNameMatching`: case and width folded, so
    /// `ｄｍｉｔｒｉ` signs in as `dmitri`), else the first `uid`, else what was typed.
    private func makeUser(_ entry: LDAPEntry, typedName: String, groups: Groups) -> DirectoryUser {
        let uids = entry.values("uid")
        let typed = uids.first { UserNameMatching.same($0, typedName) }
        let userName = typed ?? uids.first ?? typedName
        return makeUser(entry, userName: userName, groups: groups)
    }

    private func makeUser(_ entry: LDAPEntry, userName: String, groups: Groups) -> DirectoryUser {
        DirectoryUser(
            userName: userName,
            dn: entry.dn,
            displayName: entry.first("displayName") ?? entry.first("cn") ?? userName,
            role: groups.foremen.contains(userName: userName, dn: entry.dn) ? .foreman : .technician,
            adminGroupMember: groups.admins?.contains(userName: userName, dn: entry.dn))
    }

    // MARK: - Errors

    /// Runs one libldap step; an unreachable server becomes `.unreachable`, any other failure
    /// what `refused` makes of it.
    private func attempt<Value>(
        _ step: () throws(LDAPStatus) -> Value, refused: (LDAPStatus) -> DirectoryError
    ) throws(DirectoryError) -> Value {
        do throws(LDAPStatus) {
            return try step()
        } catch {
            throw mapped(error, refused: refused)
        }
    }

    private func mapped(_ status: LDAPStatus, refused: (LDAPStatus) -> DirectoryError) -> DirectoryError {
        if isTLSHandshakeFailure(status) {
            return .tlsHandshakeFailed(url: configuration.url, status: status)
        }
        guard status.isUnreachable else { return refused(status) }
        let reason = status.unreachableReason(timeoutSeconds: configuration.timeoutSeconds)
        return .unreachable(url: configuration.url, reason: reason, status: status)
    }

    /// libldap reports a failed handshake as `LDAP_CONNECT_ERROR` after StartTLS, and as
    /// `LDAP_SERVER_DOWN` with a TLS diagnostic (but no socket error) on ldaps://.
    private func isTLSHandshakeFailure(_ status: LDAPStatus) -> Bool {
        if configuration.startTLS {
            return status.code == LDAP_CONNECT_ERROR
        }
        return configuration.url.lowercased().hasPrefix("ldaps:") && status.code == LDAP_SERVER_DOWN
            && !status.diagnostic.isEmpty && !LDAPStatus.networkErrors.contains(status.systemError)
    }
}
