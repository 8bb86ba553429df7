import Foundation
import MIKit
import TestSupport
import XCTest

/// The local copy of an uploaded form is removed only when the receipt matches every part and
/// no file changed since it was hashed.
final class UploadCompletionTests: XCTestCase {
    private var fixture: StoreFixture!
    private var foreman: Workflow!

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        foreman = fixture.workflow(user: "fiona", role: .foreman)
        let technician = fixture.workflow(user: "ana")
        _ = try technician.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")
        _ = try technician.attach("pump-1", question: "bearings", files: [try fixture.mediaSource("t.jpg", bytes: 5000)])
        _ = try technician.answer("pump-1", [
            AnswerUpdate(question: "guard", value: .words(["yes"])),
            AnswerUpdate(question: "leaks", value: .words(["None"])),
            AnswerUpdate(question: "noise", value: .words(["1"])),
            AnswerUpdate(question: "checks", value: .json(.array([.string("Alignment")]))),
            AnswerUpdate(question: "pressure", value: .words(["4.5"])),
            AnswerUpdate(question: "hours", value: .json(.number(1200))),
            AnswerUpdate(question: "bearings", value: .words([#"[["61","2.5"],["58","1.9"],["70",null]]"#])),
            AnswerUpdate(question: "notes", value: .words(["fine"])),
        ])
        _ = try technician.submit("pump-1")
    }

    override func tearDown() {
        foreman = nil
        fixture = nil
    }

    /// Prepares the upload and hashes its parts, as `mi upload` does before sending.
    private func prepare() throws -> (FormLocation, Form, [SentPart]) {
        let location = try foreman.resolve("ana/pump-1", areas: [.completed])
        let (form, parts) = try foreman.prepareUpload(location)
        return (location, form, try parts.map(SentPart.hashing))
    }

    /// The receipt a server that stored exactly `sent` would give.
    private func receipt(for form: Form, _ sent: [SentPart]) -> Receipt {
        Receipt(id: form.id, user: "ana", formName: form.name, uploadedBy: "fiona",
                receivedAt: TestClock.start,
                parts: sent.map { Receipt.Part(name: $0.digest.name, filename: $0.part.file.lastPathComponent,
                                               size: $0.digest.size, sha256: $0.digest.sha256) })
    }

    func testPreparingAnUploadWritesNothing() throws {
        let location = try foreman.resolve("ana/pump-1", areas: [.completed])
        let before = try Data(contentsOf: location.formFile)
        _ = try prepare()
        XCTAssertEqual(try Data(contentsOf: location.formFile), before, "no upload is recorded before the receipt is verified")
        XCTAssertFalse(try fixture.store.load(location).audit.contains { $0.action == .uploaded })
    }

    func testSnapshotHashesEveryPartFormFirst() throws {
        let (_, _, sent) = try prepare()
        XCTAssertEqual(sent.map(\.part.name), [UploadPart.formName, "Qid7(1).jpg"])
        XCTAssertEqual(sent[1].digest.size, 5000)
        XCTAssertEqual(sent[1].digest.sha256, FileDigest.sha256(of: try Data(contentsOf: sent[1].part.file)))
        XCTAssertEqual(sent[1].identity, FileIdentity(sent[1].part.file))
    }

    func testMatchingReceiptAndUnchangedFilesRemoveTheLocalCopy() throws {
        let (location, form, sent) = try prepare()
        try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: receipt(for: form, sent))
        XCTAssertFalse(Files.exists(location.folder))
    }

    func testFileChangedAfterHashingKeepsTheLocalCopy() throws {
        let (location, form, sent) = try prepare()
        let media = try XCTUnwrap(sent.last).part.file
        let handle = try FileHandle(forWritingTo: media)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()

        XCTAssertThrowsError(try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: receipt(for: form, sent))) { error in
            XCTAssertEqual(error as? ReceiptError, .changedDuringUpload("Qid7(1).jpg"))
            XCTAssertEqual((error as? ReceiptError)?.failureClass, .refused)
        }
        XCTAssertTrue(Files.exists(media), "the local copy is kept")
    }

    /// A file replaced by one with the same bytes is a new inode: not provably what was sent.
    func testReplacedFileKeepsTheLocalCopy() throws {
        let (location, form, sent) = try prepare()
        let media = try XCTUnwrap(sent.last).part.file
        let bytes = try Data(contentsOf: media)
        try FileManager.default.removeItem(at: media)
        try bytes.write(to: media)
        XCTAssertThrowsError(try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: receipt(for: form, sent)))
        XCTAssertTrue(Files.exists(location.formFile))
    }

    func testReceiptMissingAPartKeepsTheLocalCopy() throws {
        let (location, form, sent) = try prepare()
        var partial = receipt(for: form, sent)
        partial.parts.removeLast()
        XCTAssertThrowsError(try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: partial)) { error in
            XCTAssertEqual(error as? ReceiptError, .partMissing("Qid7(1).jpg"))
        }
        XCTAssertTrue(Files.exists(location.formFile))
    }

    /// A receipt must list exactly the parts sent: one that lists a part never sent (or one part
    /// twice) is not the receipt of this upload, and the local copy stays.
    func testReceiptListingAPartNeverSentKeepsTheLocalCopy() throws {
        let (location, form, sent) = try prepare()
        var padded = receipt(for: form, sent)
        padded.parts.append(Receipt.Part(name: "Qid9(1).jpg", filename: "Qid9(1).jpg", size: 3, sha256: String(repeating: "0", count: 64)))
        XCTAssertThrowsError(try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: padded)) { error in
            XCTAssertEqual(error as? ReceiptError, .partNotSent("Qid9(1).jpg"))
            XCTAssertEqual((error as? ReceiptError)?.failureClass, .refused)
        }
        XCTAssertTrue(Files.exists(location.formFile))
        var doubled = receipt(for: form, sent)
        doubled.parts.append(try XCTUnwrap(doubled.parts.last))
        XCTAssertThrowsError(try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: doubled)) { error in
            XCTAssertEqual(error as? ReceiptError, .partListedTwice("Qid7(1).jpg"))
        }
        XCTAssertTrue(Files.exists(location.formFile))
        XCTAssertNoThrow(try foreman.completeUpload(location, formID: form.id, sent: sent, receipt: receipt(for: form, sent)))
        XCTAssertFalse(Files.exists(location.formFile), "the exact receipt still completes the upload")
    }

    func testHashingAMissingFileFails() {
        let part = UploadPart(name: "Qid0(1).jpg", file: URL(fileURLWithPath: "/nonexistent/Qid0(1).jpg"))
        XCTAssertThrowsError(try SentPart.hashing(part)) { error in
            guard case .io(_, let path, _)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/nonexistent/Qid0(1).jpg")
        }
    }
}
