import MIKit
import TestSupport
import XCTest

final class PublishRightTests: XCTestCase {
    func testWithoutAnAdminGroupForemenPublishAndTechniciansDoNot() {
        XCTAssertTrue(PublishRight.allows(role: .foreman, adminGroupConfigured: false, adminGroupMember: nil))
        XCTAssertFalse(PublishRight.allows(role: .technician, adminGroupConfigured: false, adminGroupMember: nil))
    }

    func testWithAnAdminGroupOnlyItsMembersPublishWhateverTheirRole() {
        XCTAssertTrue(PublishRight.allows(role: .technician, adminGroupConfigured: true, adminGroupMember: true))
        XCTAssertFalse(PublishRight.allows(role: .foreman, adminGroupConfigured: true, adminGroupMember: false))
    }

    /// A session signed before the right was carried says nothing: with a group, no right.
    func testUnknownMembershipWithAnAdminGroupGrantsNothing() {
        XCTAssertFalse(PublishRight.allows(role: .foreman, adminGroupConfigured: true, adminGroupMember: nil))
    }

    func testAdminGroupIsOptionalInConfigPlist() throws {
        let directory = try TemporaryDirectory(prefix: "mikit-admin-group")
        let without = try ConfigurationLoader.load(from: ConfigFixture.write(into: directory.url))
        XCTAssertNil(without.ldap.adminGroup)
        let with = try ConfigurationLoader.load(from: ConfigFixture.write(
            into: directory.url, [.set("LDAP.AdminGroup", .string("cn=publishers,dc=example,dc=com"))]))
        XCTAssertEqual(with.ldap.adminGroup, "cn=publishers,dc=example,dc=com")
    }
}
