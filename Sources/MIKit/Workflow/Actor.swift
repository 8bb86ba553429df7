import Foundation

/// Who is working: the logged-in user and what they may do.
public struct Actor: Sendable, Equatable {
    public enum Role: String, Sendable, Codable { case technician, foreman }
    public var name: String
    public var role: Role
    public init(name: String, role: Role) { self.name = name; self.role = role }
}
