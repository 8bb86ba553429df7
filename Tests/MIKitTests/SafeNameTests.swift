import Foundation
import MIKit
import TestSupport
import XCTest

final class SafeNameTests: XCTestCase {
    private let hostile = ["", "a/b", "..", "a..b", ".hidden", "x\u{0}y", "tab\there", "\u{202E}evil",
                           "a\\b", "-rf", " padded", "line\nbreak", "para\u{2029}sep", String(repeating: "x", count: 201)]

    func testHostileNamesAreRefused() {
        for name in hostile {
            XCTAssertNotNil(SafeName.problem(name), "should refuse \(SafeName.printable(name).debugDescription)")
            XCTAssertThrowsError(try SafeName.check(name, as: "user name")) { error in
                guard case StoreError.unsafeName(let kind, let refused, _)? = error as? StoreError else {
                    return XCTFail("expected StoreError.unsafeName, got \(error)")
                }
                XCTAssertEqual(kind, "user name")
                XCTAssertEqual(refused, name)
            }
        }
    }

    func testEachHostileNameGetsItsOwnReason() {
        XCTAssertEqual(SafeName.problem(""), "it is empty")
        XCTAssertEqual(SafeName.problem("a/b"), #"it contains "/""#)
        XCTAssertEqual(SafeName.problem(".."), #"it contains "..""#)
        XCTAssertEqual(SafeName.problem("a..b"), #"it contains "..""#)
        XCTAssertEqual(SafeName.problem(".hidden"), #"it starts with ".""#)
        XCTAssertEqual(SafeName.problem("x\u{0}y"), "it contains a NUL character")
        XCTAssertEqual(SafeName.problem("tab\there"), "it contains a control character (U+9)")
        XCTAssertEqual(SafeName.problem("\u{202E}evil"), "it contains a control character (U+202E)")
    }

    func testOrdinaryNamesAreAccepted() throws {
        for name in ["ana", "o'brien.j-k", "Ñuñoa 2", "pump-inspection-20260302-0900", "Qid1(3).mp4", "a.b"] {
            XCTAssertNil(SafeName.problem(name), name)
            XCTAssertEqual(try SafeName.check(name, as: "form name"), name)
        }
    }

    func testPrintableEscapesControlCharacters() {
        XCTAssertEqual(SafeName.printable("tab\there"), "tab\\u{9}here")
        XCTAssertEqual(SafeName.printable("\u{202E}evil"), "\\u{202e}evil")
        XCTAssertEqual(SafeName.printable("Ñuñoa"), "Ñuñoa")
    }

    func testUnsafeNameMessageIsPrintable() {
        let error = StoreError.unsafeName(kind: "form name", name: "a\u{1B}[2J", reason: "x")
        XCTAssertFalse(error.localizedDescription.contains("\u{1B}"), error.localizedDescription)
    }

    func testStoreLocationRefusesHostileUserAndFormNamesBeforeBuildingAPath() throws {
        let directory = try TemporaryDirectory()
        let store = Store(root: directory.path("Documents"))
        for name in hostile {
            XCTAssertThrowsError(try store.location(.incomplete, user: name, name: "form")) { error in
                guard case StoreError.unsafeName(let kind, _, _)? = error as? StoreError else {
                    return XCTFail("expected unsafeName, got \(error)")
                }
                XCTAssertEqual(kind, "user name")
            }
            XCTAssertThrowsError(try store.location(.completed, user: "ana", name: name)) { error in
                guard case StoreError.unsafeName(let kind, _, _)? = error as? StoreError else {
                    return XCTFail("expected unsafeName, got \(error)")
                }
                XCTAssertEqual(kind, "form name")
            }
        }
        XCTAssertFalse(Files.exists(directory.path("Documents")), "checking names creates nothing")
    }

    func testStoreLocationOfSafeNamesStaysUnderTheRoot() throws {
        let directory = try TemporaryDirectory()
        let store = Store(root: directory.path("Documents"))
        let location = try store.location(.completed, user: "o'brien.j-k", name: "Ñuñoa 2")
        XCTAssertEqual(location.folder.path, directory.path("Documents", "CompletedMIs", "o'brien.j-k", "Ñuñoa 2").path)
        XCTAssertEqual(location.relativePath, "CompletedMIs/o'brien.j-k/Ñuñoa 2")
        XCTAssertEqual(location.formFile.lastPathComponent, "form.json")
    }

    func testUserFolderAndMessagesRefuseHostileUsers() throws {
        let directory = try TemporaryDirectory()
        let store = Store(root: directory.path("Documents"))
        XCTAssertThrowsError(try store.userFolder(.incomplete, user: "../../etc"))
        XCTAssertThrowsError(try store.list(.incomplete, user: ".."))
        XCTAssertThrowsError(try store.post(UserMessage(at: Date(), text: "hi"), to: "../x"))
        XCTAssertFalse(Files.exists(directory.path("x.json")))
        XCTAssertFalse(Files.exists(directory.path("Documents")))
    }
}
