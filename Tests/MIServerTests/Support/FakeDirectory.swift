import MIDirectory
import NIOConcurrencyHelpers

/// A directory of technicians ana, bob, luis and chloé and the foreman fiona, all with password
/// "secret"; `unreachable` makes every call fail as an unreachable LDAP server would.
final class FakeDirectory: DirectoryService {
    static let password = "secret"
    static let users = [
        DirectoryUser(userName: "ana", dn: "uid=ana,ou=people,dc=example,dc=com", displayName: "Ana Pérez", role: .technician),
        DirectoryUser(userName: "fiona", dn: "uid=fiona,ou=people,dc=example,dc=com", displayName: "Fiona Gallagher", role: .foreman),
        DirectoryUser(userName: "bob", dn: "uid=bob,ou=people,dc=example,dc=com", displayName: "Bob Stone", role: .technician),
        DirectoryUser(userName: "luis", dn: "uid=luis,ou=people,dc=example,dc=com", displayName: "Luis Ortega", role: .technician),
        DirectoryUser(userName: "chloé", dn: "uid=chlo\\C3\\A9,ou=people,dc=example,dc=com", displayName: "Chloé Martin", role: .technician),
    ]

    private let state = NIOLockedValueBox((unreachable: false, calls: 0))

    var unreachable: Bool {
        get { state.withLockedValue { $0.unreachable } }
        set { state.withLockedValue { $0.unreachable = newValue } }
    }

    var calls: Int { state.withLockedValue { $0.calls } }

    static let unreachableError = DirectoryError.unreachable(
        url: "ldap://ldap.example.com", reason: "connection refused",
        status: LDAPStatus(code: -1, message: "Can't contact LDAP server", diagnostic: ""))

    func authenticate(user: String, password: String) throws -> DirectoryUser {
        let unreachable = state.withLockedValue { state in
            state.calls += 1
            return state.unreachable
        }
        if unreachable { throw Self.unreachableError }
        if user.isEmpty || user.contains("/") { throw DirectoryError.invalidUserName(user) }
        if password.isEmpty { throw DirectoryError.emptyPassword }
        guard let found = Self.users.first(where: { $0.userName == user }), password == Self.password else {
            throw DirectoryError.wrongUserNameOrPassword
        }
        return found
    }

    func lookup(user: String) throws -> DirectoryUser? {
        if unreachable { throw Self.unreachableError }
        return Self.users.first { $0.userName == user }
    }
    func listUsers() throws -> [DirectoryUser] { Self.users }
}
