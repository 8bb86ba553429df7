/// Authentication and user lookup against the organisation's directory.
///
/// Calls block until the directory answers or the configured timeout passes; every call
/// uses its own connection, so a service may be used from several threads at once.
public protocol DirectoryService: Sendable {
    /// Checks `password` by search-then-bind and returns the user with their role.
    /// Throws `DirectoryError.wrongUserNameOrPassword` for an unknown user or a wrong password.
    func authenticate(user: String, password: String) throws -> DirectoryUser
    /// Finds a user with the service account, without their password; nil when none matches.
    func lookup(user: String) throws -> DirectoryUser?
    /// Every user `LDAP.UserFilter` matches (with `%s` = `*`), sorted by user name.
    func listUsers() throws -> [DirectoryUser]
}
