import Foundation

/// One search result entry: its DN and the values of the attributes that were asked for.
struct LDAPEntry: Sendable, Equatable {
    var dn: String
    /// Keyed by the attribute names as requested.
    var attributes: [String: [String]]

    /// The first value of `attribute` that is not blank.
    func first(_ attribute: String) -> String? {
        attributes[attribute]?.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    func values(_ attribute: String) -> [String] {
        attributes[attribute] ?? []
    }
}
