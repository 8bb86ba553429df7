import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A streaming pass over one part's XML (Foundation's XMLParser, libxml2 underneath on Linux):
/// the handler sees elements by local name (any `x:` prefix dropped), attributes and text, and may
/// throw to stop the pass. Nothing is kept but what the handler keeps.
protocol XMLHandler: AnyObject {
    func start(_ element: String, attributes: [String: String]) throws
    func end(_ element: String) throws
    /// Text inside an element; only called while `wantsText` is true.
    func text(_ text: String)
    var wantsText: Bool { get }
}

final class XMLScanner: NSObject, XMLParserDelegate {
    private let handler: any XMLHandler
    private var thrown: (any Error)?

    private init(handler: any XMLHandler) {
        self.handler = handler
    }

    /// Runs `handler` over `data`, the content of `part`; a DTD, malformed XML, or the handler's own
    /// error ends the pass with that error.
    static func scan(_ data: Data, part: String, with handler: any XMLHandler) throws {
        // Office Open XML never has a DTD; refusing one keeps entity expansion out entirely.
        if declaresDocumentType(data) { throw XLSXError.documentTypeDeclaration(part: part) }
        let scanner = XMLScanner(handler: handler)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = scanner
        let finished = parser.parse()
        if let thrown = scanner.thrown { throw thrown }
        if !finished {
            let detail = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "the parser stopped"
            throw XLSXError.malformedXML(part: part, line: parser.lineNumber, detail: detail)
        }
        // XMLParser reports no error when the data ends inside an element (a truncated part).
        if scanner.depth != 0 || !scanner.sawRoot {
            throw XLSXError.malformedXML(part: part, line: parser.lineNumber,
                                         detail: scanner.sawRoot ? "it ends before its elements are closed" : "it has no root element")
        }
    }

    private var depth = 0
    private var sawRoot = false

    /// Whether the prolog (before the root element, where a DTD must stand) holds `<!DOCTYPE`.
    /// Reads only the prolog: declarations, comments, processing instructions and white space.
    static func declaresDocumentType(_ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            let doctype = Array("<!DOCTYPE".utf8)
            var index = 0
            func starts(with prefix: [UInt8], at position: Int) -> Bool {
                guard position + prefix.count <= bytes.count else { return false }
                for (offset, byte) in prefix.enumerated() where bytes[position + offset] != byte { return false }
                return true
            }
            func skip(past terminator: [UInt8]) {
                while index < bytes.count, !starts(with: terminator, at: index) { index += 1 }
                index += terminator.count
            }
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF:  // white space and a UTF-8 byte-order mark
                    index += 1
                case UInt8(ascii: "<"):
                    if starts(with: doctype, at: index) { return true }
                    if starts(with: Array("<?".utf8), at: index) {
                        skip(past: Array("?>".utf8))
                    } else if starts(with: Array("<!--".utf8), at: index) {
                        skip(past: Array("-->".utf8))
                    } else {
                        return false  // the root element: no DTD can follow
                    }
                default:
                    return false
                }
            }
            return false
        }
    }

    private static func localName(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: ":")) else { return name }
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        sawRoot = true
        guard thrown == nil else { return }
        do { try handler.start(Self.localName(elementName), attributes: attributes) } catch { stop(parser, error) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        guard thrown == nil else { return }
        do { try handler.end(Self.localName(elementName)) } catch { stop(parser, error) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if thrown == nil, handler.wantsText { handler.text(string) }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if thrown == nil, handler.wantsText { handler.text(String(decoding: CDATABlock, as: UTF8.self)) }
    }

    private func stop(_ parser: XMLParser, _ error: any Error) {
        thrown = error
        parser.abortParsing()
    }
}

extension Dictionary where Key == String, Value == String {
    /// The attribute whose local name is `name`, whatever its prefix (`r:id`, `x:r`); an unprefixed one first.
    func attribute(_ name: String) -> String? {
        if let value = self[name] { return value }
        for (key, value) in self {
            if let colon = key.lastIndex(of: ":"), key[key.index(after: colon)...] == name { return value }
        }
        return nil
    }
}
