import Foundation
import MIKit
import XCTest

/// The HTTP API's types as they look on the wire, for mi-server and the transport alike.
final class WireTypesTests: XCTestCase {
    func testHexIsLowercaseTwoDigitsPerByte() {
        XCTAssertEqual(Hex.lowercase([0x00, 0x0f, 0xa0, 0xff]), "000fa0ff")
        XCTAssertEqual(Hex.lowercase([UInt8]()), "")
        XCTAssertEqual(FileDigest.sha256(of: Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testErrorBodyRoundTrip() throws {
        let data = try WireJSON.encoder().encode(APIErrorBody(message: "no template \"x\""))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"error":{"message":"no template \"x\""}}"#)
        XCTAssertEqual(APIErrorBody.message(in: data), "no template \"x\"")
    }

    func testErrorBodyMessageIsNilForOtherBodies() {
        XCTAssertNil(APIErrorBody.message(in: Data("<html>proxy</html>".utf8)))
        XCTAssertNil(APIErrorBody.message(in: Data(#"{"error":{"message":"  "}}"#.utf8)))
        XCTAssertNil(APIErrorBody.message(in: Data()))
    }

    func testSessionAnswerCodesDatesAsISO8601AndTheRoleByName() throws {
        let session = ServerSession(token: "t", user: "ana", displayName: "Ana", role: .foreman,
                                    expiresAt: Date(timeIntervalSince1970: 1_772_442_000))
        let text = String(decoding: try WireJSON.encoder().encode(session), as: UTF8.self)
        XCTAssertEqual(text, #"{"displayName":"Ana","expiresAt":"2026-03-02T09:00:00Z","role":"foreman","token":"t","user":"ana"}"#)
        XCTAssertEqual(try WireJSON.decoder().decode(ServerSession.self, from: Data(text.utf8)), session)
    }

    func testDecoderAcceptsFractionalSeconds() throws {
        let json = #"{"id":"6F1D2E4C-9A7B-4C3D-8E5F-1A2B3C4D5E6F","user":"ana","formName":"f","uploadedBy":"fiona","receivedAt":"2026-03-02T09:00:00.250Z","parts":[]}"#
        let receipt = try WireJSON.decoder().decode(Receipt.self, from: Data(json.utf8))
        XCTAssertEqual(receipt.receivedAt.timeIntervalSince1970, 1_772_442_000.25, accuracy: 0.001)
        XCTAssertEqual(receipt.id.description, "6f1d2e4c-9a7b-4c3d-8e5f-1a2b3c4d5e6f", "read in either case, spelled lowercase")
    }

    func testUnknownRoleIsRefused() {
        let json = #"{"displayName":"A","expiresAt":"2026-03-02T09:00:00Z","role":"admin","token":"t","user":"a"}"#
        XCTAssertThrowsError(try WireJSON.decoder().decode(ServerSession.self, from: Data(json.utf8)))
    }

    func testTheFormPartIsFormJSON() {
        let part = UploadPart.form(URL(fileURLWithPath: "/x/form.json"))
        XCTAssertEqual(part.name, "form")
        XCTAssertTrue(part.isForm)
        XCTAssertEqual(UploadPart.formFilename, "form.json")
        XCTAssertFalse(UploadPart(name: "Qid0(1).jpg", file: URL(fileURLWithPath: "/x/Qid0(1).jpg")).isForm)
    }
}
