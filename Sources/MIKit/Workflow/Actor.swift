import Foundation

/// Who is working: the logged-in user and what they may do.
public struct Actor: Sendable, Equatable {
    public enum Role: String, Sendable, Codable { case technician, foreman }
    public var name: String
    public var role: Role
    public init(name: String, role: Role) { self.name = name; self.role = role }
}

/// A workflow step refused; the message says why and what to do.
public struct WorkflowError: LocalizedError, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var errorDescription: String? { message }
}
