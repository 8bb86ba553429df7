import Foundation

/// A property-list value that can be written (MIKit's `PlistValue` only reads), so tests can
/// build Config.plist files, with any key changed, in XML or binary form.
public indirect enum PlistNode: Encodable, Equatable, Sendable,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([PlistNode])
    case dictionary([String: PlistNode])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PlistNode...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PlistNode)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }

    /// The value at a dotted key path (`LDAP.URL`), or nil.
    public subscript(keyPath keyPath: String) -> PlistNode? {
        var node: PlistNode? = self
        for key in keyPath.split(separator: ".").map(String.init) {
            guard case .dictionary(let dictionary)? = node else { return nil }
            node = dictionary[key]
        }
        return node
    }

    /// A copy with the value at `keyPath` replaced (nil removes the key); missing
    /// intermediate dictionaries are created.
    public func setting(_ keyPath: String, to value: PlistNode?) -> PlistNode {
        let keys = keyPath.split(separator: ".").map(String.init)
        return Self.set(self, keys[...], value)
    }

    private static func set(_ node: PlistNode, _ keys: ArraySlice<String>, _ value: PlistNode?) -> PlistNode {
        guard let key = keys.first else { return value ?? node }
        var dictionary: [String: PlistNode] = [:]
        if case .dictionary(let existing) = node { dictionary = existing }
        if keys.count == 1 {
            dictionary[key] = value
        } else {
            dictionary[key] = set(dictionary[key] ?? .dictionary([:]), keys.dropFirst(), value)
        }
        return .dictionary(dictionary)
    }

    /// The plist file's bytes.
    public func data(format: PropertyListSerialization.PropertyListFormat = .xml) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        return try encoder.encode(self)
    }
}

/// One change to the standard test configuration.
public enum ConfigEdit: Sendable {
    case set(String, PlistNode)
    case remove(String)
}

/// A valid Config.plist for tests, with any change applied.
public enum ConfigFixture {
    /// Every key the loader knows, with valid values. `Documents` is relative ("Documents"), so
    /// it lands next to the plist.
    public static let standard: PlistNode = [
        "Server": [
            "Scheme": "https",
            "Domain": "mi.example.com",
            "Port": 8443,
            "Paths": [
                "TemplateList": "/api/v1/templates",
                "Template": "/api/v1/templates/{id}",
                "Session": "/api/v1/session",
                "Submit": "/api/v1/submissions",
            ],
            "Listen": "127.0.0.1:8443",
            "MaxUploadBytes": 1_048_576,
            "TokenMinutes": 60,
        ],
        "LDAP": [
            "URL": "ldap://ldap.example.com",
            "StartTLS": true,
            "BaseDN": "ou=people,dc=example,dc=com",
            "UserFilter": "(&(objectClass=inetOrgPerson)(uid=%s))",
            "ForemanGroup": "cn=foremen,ou=groups,dc=example,dc=com",
            "GroupMemberAttribute": "member",
            "TimeoutSeconds": 10,
        ],
        "Documents": "Documents",
        "ExpiryDays": 7,
        "ReminderDays": [1, 2],
    ]

    /// The standard configuration with `edits` applied, in order.
    public static func plist(_ edits: [ConfigEdit] = []) -> PlistNode {
        edits.reduce(standard) { node, edit in
            switch edit {
            case .set(let keyPath, let value): return node.setting(keyPath, to: value)
            case .remove(let keyPath): return node.setting(keyPath, to: nil)
            }
        }
    }

    /// Writes the standard configuration with `edits` as `folder/name` and returns its URL.
    @discardableResult
    public static func write(into folder: URL, name: String = "Config.plist", _ edits: [ConfigEdit] = [],
                             format: PropertyListSerialization.PropertyListFormat = .xml) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Files.write(try plist(edits).data(format: format), to: url)
        return url
    }
}
