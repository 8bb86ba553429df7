import Foundation
import MIKit
import XCTest

final class ByteCountTests: XCTestCase {
    func testIECUnitsWithOneDecimal() {
        XCTAssertEqual(ByteCount.string(0), "0 B")
        XCTAssertEqual(ByteCount.string(1023), "1023 B")
        XCTAssertEqual(ByteCount.string(1024), "1.0 KiB")
        XCTAssertEqual(ByteCount.string(1536), "1.5 KiB")
        XCTAssertEqual(ByteCount.string(48_000), "46.9 KiB")
        XCTAssertEqual(ByteCount.string(200_000_000), "190.7 MiB", "what the CLI said, and now the PDF too")
        XCTAssertEqual(ByteCount.string(3 << 30), "3.0 GiB")
        XCTAssertEqual(ByteCount.string(Int64(5) << 40), "5.0 TiB")
    }

    func testRoundingNeverShows1024OfAUnit() {
        XCTAssertEqual(ByteCount.string(1_048_575), "1.0 MiB")
        XCTAssertEqual(ByteCount.string((1 << 30) - 1), "1.0 GiB")
    }

    func testHugeAndNegativeCountsStayReadable() {
        XCTAssertEqual(ByteCount.string(Int64.max), "8.0 EiB")
        XCTAssertEqual(ByteCount.string(-2048), "-2.0 KiB")
    }
}

final class AuditSentenceTests: XCTestCase {
    private let at = Date(timeIntervalSince1970: 0)

    func testEachActionReadsAsASentenceWithWhoDidIt() {
        let cases: [(AuditEvent, String)] = [
            (AuditEvent(at: at, by: "ana", action: .created, note: "template pump v3"), "created from template pump v3 by ana"),
            (AuditEvent(at: at, by: "ana", action: .answered, questions: ["q1", "q2"]), "answered q1, q2 by ana"),
            (AuditEvent(at: at, by: "ana", action: .attached, questions: ["q1"], media: "Qid0(1).jpg"), "attached Qid0(1).jpg to q1 by ana"),
            (AuditEvent(at: at, by: "ana", action: .detached, questions: ["q1"], media: "Qid0(1).jpg"), "detached Qid0(1).jpg from q1 by ana"),
            (AuditEvent(at: at, by: "ana", action: .submitted), "submitted by ana"),
            (AuditEvent(at: at, by: "fiona", action: .commented, note: "fine"), "commented by fiona: “fine”"),
            (AuditEvent(at: at, by: "fiona", action: .returned, note: "photo missing"), "sent back by fiona: “photo missing”"),
            (AuditEvent(at: at, by: "fiona", action: .assigned, from: "bob", to: "carla"), "assigned from bob to carla by fiona"),
            (AuditEvent(at: at, by: "ana", action: .renamed, from: "f", to: "f-2"), "renamed from f to f-2 by ana"),
            (AuditEvent(at: at, by: "fiona", action: .uploaded), "uploaded by fiona"),
        ]
        for (event, sentence) in cases { XCTAssertEqual(event.sentence, sentence) }
    }

    func testAnUploadEventInALocalFormIsToldAsAnUnconfirmedAttempt() {
        XCTAssertEqual(AuditEvent(at: at, by: "carla", action: .uploaded).sentenceInLocalStore,
                       "upload attempted by carla, never confirmed by the server")
        XCTAssertEqual(AuditEvent(at: at, by: "ana", action: .submitted).sentenceInLocalStore, "submitted by ana")
    }

    func testMissingPartsAreLeftOut() {
        XCTAssertEqual(AuditEvent(at: at, by: "ana", action: .created).sentence, "created by ana")
        XCTAssertEqual(AuditEvent(at: at, by: "ana", action: .answered).sentence, "answered by ana")
        XCTAssertEqual(AuditEvent(at: at, by: "fiona", action: .commented, note: "").sentence, "commented by fiona")
    }
}
