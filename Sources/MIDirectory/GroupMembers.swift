import Foundation
import MIKit

/// The members of a directory group (`LDAP.ForemanGroup`, `LDAP.AdminGroup`), read once per
/// operation with the service account.
struct GroupMembers {
    private enum Members {
        /// `member` of a groupOfNames: normalized DNs.
        case dns(Set<String>)
        /// `memberUid` of a posixGroup: user names.
        case userNames(Set<String>)
    }

    private let members: Members

    /// `values` are the group entry's values of `attribute` (`member` or `memberUid`).
    init(attribute: String, values: [String]) {
        if attribute == "memberUid" {
            members = .userNames(Set(values.map { $0.trimmingCharacters(in: .whitespaces) }))
        } else {
            members = .dns(Set(values.map(DistinguishedName.normalized)))
        }
    }

    /// `userName` is the directory's spelling (uid); memberUid compares it exactly, as the
    /// schema's caseExactIA5Match and NSS do.
    func contains(userName: String, dn: String) -> Bool {
        switch members {
        case .dns(let dns): dns.contains(DistinguishedName.normalized(dn))
        case .userNames(let names): names.contains(userName)
        }
    }
}
