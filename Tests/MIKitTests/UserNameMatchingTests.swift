import MIKit
import XCTest

final class UserNameMatchingTests: XCTestCase {
    /// Width, case and insignificant spaces are folded as LDAP's caseIgnoreMatch folds them.
    func testEverySpellingOfOneAccountHasOneKey() {
        let spellings = ["dmitri", "DMITRI", "Dmitri", "ｄｍｉｔｒｉ", "ＤＭＩＴＲＩ", "ｄmｉtrｉ", " dmitri ", "dmitri\u{3000}"]
        XCTAssertEqual(Set(spellings.map(UserNameMatching.key)), ["dmitri"])
        XCTAssertTrue(UserNameMatching.same("ｄｍｉｔｒｉ", "dmitri"))
        XCTAssertEqual(UserNameMatching.key("ana  maría"), "ana maría", "runs of spaces inside are one")
        XCTAssertEqual(UserNameMatching.key("Ana\u{0301}"), UserNameMatching.key("anÁ".lowercased()), "composed and decomposed")
    }

    func testOtherAccountsKeepTheirOwnKeys() {
        XCTAssertFalse(UserNameMatching.same("dmitri", "dmitry"))
        XCTAssertFalse(UserNameMatching.same("ana", "ana2"))
        XCTAssertFalse(UserNameMatching.same("o'brien.j-k", "obrien.j-k"))
    }
}
