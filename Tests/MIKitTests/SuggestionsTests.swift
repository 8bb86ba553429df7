import MIKit
import XCTest

final class SuggestionsTests: XCTestCase {
    func testDistanceCountsEditsIgnoringCase() {
        XCTAssertEqual(Suggestions.distance("neg-tst", "neg-test"), 1)
        XCTAssertEqual(Suggestions.distance("fil", "fill"), 1)
        XCTAssertEqual(Suggestions.distance("reveiw", "review"), 2)
        XCTAssertEqual(Suggestions.distance("PUMP", "pump"), 0)
        XCTAssertEqual(Suggestions.distance("", "abc"), 3)
        XCTAssertEqual(Suggestions.distance("kitten", "sitting"), 3)
    }

    func testClosestKeepsOnlyNearNamesClosestFirst() {
        let names = ["neg-test", "neg-tests", "pump-1", "boiler"]
        XCTAssertEqual(Suggestions.closest(to: "neg-tst", among: names), ["neg-test", "neg-tests"])
        XCTAssertEqual(Suggestions.closest(to: "xyzzy", among: names), [])
        XCTAssertEqual(Suggestions.closest(to: "pump-2", among: names, limit: 1), ["pump-1"])
    }

    func testDidYouMeanQuotesEachNameForTheShell() {
        XCTAssertNil(Suggestions.didYouMean([]))
        XCTAssertEqual(Suggestions.didYouMean(["fill"]), "did you mean 'fill'?")
        XCTAssertEqual(Suggestions.didYouMean(["a b", "O'Brien", "c"]), #"did you mean 'a b', 'O'\''Brien' or 'c'?"#)
    }
}
