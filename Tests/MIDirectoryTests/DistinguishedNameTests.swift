@testable import MIDirectory
import XCTest

final class DistinguishedNameTests: XCTestCase {
    func testCaseAndSpacingDoNotMatter() {
        XCTAssertTrue(DistinguishedName.same(
            "uid=Fiona, ou=People, dc=example, dc=test", "uid=fiona,ou=people,dc=example,dc=test"))
        XCTAssertTrue(DistinguishedName.same("  UID=fiona,OU=people,DC=example,DC=test\n", "uid=fiona,ou=people,dc=example,dc=test"))
    }

    func testDifferentEntriesDiffer() {
        XCTAssertFalse(DistinguishedName.same("uid=fiona,ou=people,dc=example,dc=test", "uid=fiona2,ou=people,dc=example,dc=test"))
        XCTAssertFalse(DistinguishedName.same("uid=fiona,ou=people,dc=example,dc=test", "uid=fiona,ou=people,dc=corp,dc=test"))
    }

    func testUnparsableDNIsOnlyTrimmedAndLowercased() {
        XCTAssertEqual(DistinguishedName.normalized("  Not A DN "), "not a dn")
    }
}
