/// Checks on what the user typed, made before any connection: a bad value must never reach
/// the directory, and an empty password must never become an unauthenticated bind.
enum LoginInput {
    static let maximumUserNameBytes = 256

    /// Refuses a user name that is empty, longer than 256 UTF-8 bytes, or contains a control
    /// character (NUL included) or `/`.
    static func check(userName: String) throws(DirectoryError) {
        let acceptable = !userName.isEmpty
            && userName.utf8.count <= maximumUserNameBytes
            && !userName.unicodeScalars.contains { $0 == "/" || $0.properties.generalCategory == .control }
        guard acceptable else { throw .invalidUserName(userName) }
    }

    /// Refuses an empty password (RFC 4513 §5.1.2: a simple bind with a DN and no password
    /// is "unauthenticated", and some servers answer it with success).
    static func check(password: String) throws(DirectoryError) {
        guard !password.isEmpty else { throw .emptyPassword }
    }
}
