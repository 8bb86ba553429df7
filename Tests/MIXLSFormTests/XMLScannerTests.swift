import Foundation
@testable import MIXLSForm
import XCTest

/// The libxml2 pass under every part MIXLSForm reads: references replaced exactly once, nothing
/// substituted beyond XML's own five, and every way for a part to be wrong reported with its line.
final class XMLScannerTests: XCTestCase {
    /// Records what the scanner hands over.
    private final class Recorder: XMLHandler {
        var events: [String] = []
        var texts: [String] = []
        var wantsText: Bool { true }
        func start(_ element: String, attributes: XMLAttributes) throws {
            events.append("<\(element) v=\(attributes["v"] ?? "-") id=\(attributes.prefixed("id") ?? "-")>")
        }
        func end(_ element: String) throws { events.append("</\(element)>") }
        func text(_ text: String) {
            if let last = texts.last, events.last == "text" { texts[texts.count - 1] = last + text } else { texts.append(text); events.append("text") }
        }
    }

    private func scan(_ xml: String) throws -> Recorder {
        let recorder = Recorder()
        try XMLScanner.scan(Data(xml.utf8), part: "xl/test.xml", with: recorder)
        return recorder
    }

    func testReferencesInAttributesAndTextAreReplacedOnce() throws {
        let recorder = try scan(#"<x:a xmlns:x="urn:x" xmlns:r="urn:r" v="R&amp;D &#38; &#x26; &amp;#38; &lt;&gt;&quot;&apos; &#233;" r:id="rId7">"#
            + #"t&amp;u &amp;amp; &#38;#38; &lt;b&gt; &#x4E2D;<![CDATA[<raw> &amp;]]></x:a>"#)
        XCTAssertEqual(recorder.events.first, #"<a v=R&D & & &#38; <>"' é id=rId7>"#)
        XCTAssertEqual(recorder.texts, ["t&u &amp; &#38; <b> 中<raw> &amp;"])
        XCTAssertEqual(recorder.events.last, "</a>")
    }

    func testAnUnprefixedLookupDoesNotFindAPrefixedAttribute() throws {
        let recorder = try scan(#"<a xmlns:r="urn:r" r:v="prefixed"/>"#)
        XCTAssertEqual(recorder.events, ["<a v=- id=->", "</a>"])
    }

    func testWrongXMLNamesItsLine() {
        let cases: [(String, Int)] = [
            ("<a>\n<b>\n</a>", 3),                  // mismatched end tag
            ("<a>\n<b></b>", 2),                    // truncated: the part ends inside <a>
            ("<a>&undefined;</a>", 1),             // no entity but XML's own five
            ("<a></a><b/>", 1),                     // two roots
            ("", 1),                                // nothing at all
        ]
        for (xml, line) in cases {
            XCTAssertThrowsError(try scan(xml), xml.debugDescription) { error in
                guard case .malformedXML(let part, let reported, let detail)? = error as? XLSXError else {
                    return XCTFail("\(xml.debugDescription): \(error)")
                }
                XCTAssertEqual(part, "xl/test.xml")
                XCTAssertEqual(reported, line, "\(xml.debugDescription): \(detail)")
                XCTAssertFalse(detail.isEmpty)
                if xml == "<a>\n<b></b>" { XCTAssertEqual(detail, "it ends before its elements are closed") }
            }
        }
    }

    func testADocumentTypeIsRefusedWhereverTheScanFindsIt() {
        for xml in ["<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "<?xml version=\"1.0\"?>\n<!DOCTYPE a SYSTEM \"http://example.invalid/a.dtd\"><a/>"] {
            XCTAssertThrowsError(try scan(xml)) { error in
                XCTAssertEqual(error as? XLSXError, .documentTypeDeclaration(part: "xl/test.xml"))
            }
        }
    }

    func testTheHandlersErrorStopsThePass() {
        final class Refuser: XMLHandler {
            var seen = 0
            var wantsText: Bool { false }
            func start(_ element: String, attributes: XMLAttributes) throws {
                seen += 1
                if element == "stop" { throw XLSXError.noSheets }
            }
            func end(_ element: String) throws {}
            func text(_ text: String) {}
        }
        let refuser = Refuser()
        XCTAssertThrowsError(try XMLScanner.scan(Data("<a><stop/><b/><c/></a>".utf8), part: "p", with: refuser)) { error in
            XCTAssertEqual(error as? XLSXError, .noSheets)
        }
        XCTAssertEqual(refuser.seen, 2, "nothing after the error reaches the handler")
    }
}
