import CLibXML2
import Foundation

/// A streaming pass over one part's XML: the handler sees elements by local name (any `x:`
/// prefix dropped), attributes and text, and may throw to stop the pass. Nothing is kept but what
/// the handler keeps.
protocol XMLHandler: AnyObject {
    /// `attributes` can be read only during the call.
    func start(_ element: String, attributes: XMLAttributes) throws
    func end(_ element: String) throws
    /// Text inside an element; only called while `wantsText` is true. It may come in several pieces.
    func text(_ text: String)
    var wantsText: Bool { get }
}

/// The attributes of one element as libxml2 hands them to its SAX2 callback: five pointers each
/// (local name, prefix, namespace URI, start and end of the value), valid only during the call.
struct XMLAttributes {
    fileprivate let pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    fileprivate let count: Int

    /// The value of the attribute `name` written without a prefix (`r="A1"`, `t="s"`). Names are
    /// literals, compared with libxml2's bytes without making a String.
    subscript(name: StaticString) -> String? {
        for index in 0..<count where pointers?[index * 5 + 1] == nil {
            if let local = pointers?[index * 5], Self.equals(local, name) { return value(at: index) }
        }
        return nil
    }

    /// The UTF-8 of the unprefixed attribute `name` as libxml2 holds it, valid only during the
    /// handler's call (an `&` reads `&#38;` here; the subscript gives the value itself).
    func bytes(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        for index in 0..<count where pointers?[index * 5 + 1] == nil {
            if let local = pointers?[index * 5], Self.equals(local, name),
               let start = pointers?[index * 5 + 3], let end = pointers?[index * 5 + 4] {
                return UnsafeBufferPointer(start: start, count: end - start)
            }
        }
        return nil
    }

    /// The value of the first attribute whose local name is `name` and that has a prefix,
    /// whatever the prefix (`r:id`, the relationship id in the relationships namespace).
    func prefixed(_ name: StaticString) -> String? {
        for index in 0..<count where pointers?[index * 5 + 1] != nil {
            if let local = pointers?[index * 5], Self.equals(local, name) { return value(at: index) }
        }
        return nil
    }

    private func value(at index: Int) -> String {
        guard let start = pointers?[index * 5 + 3], let end = pointers?[index * 5 + 4] else { return "" }
        let bytes = UnsafeBufferPointer(start: start, count: end - start)
        let value = String(decoding: bytes, as: UTF8.self)
        // Without entity substitution libxml2 hands an `&` (written `&amp;` or `&#38;`) over as
        // `&#38;` and every other reference already replaced, so each `&` starts one.
        guard memchr(start, Int32(UInt8(ascii: "&")), bytes.count) != nil else { return value }
        return value.replacingOccurrences(of: "&#38;", with: "&")
    }

    /// Whether the NUL-terminated `bytes` are `name`'s UTF-8.
    private static func equals(_ bytes: UnsafePointer<xmlChar>, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        let literal = name.utf8Start
        for offset in 0..<count where bytes[offset] != literal[offset] { return false }
        return bytes[count] == 0
    }
}

/// Runs a handler over a part with libxml2's SAX2 push parser. No entity is substituted, no DTD
/// loaded, nothing fetched from the network; a document type declaration is refused before
/// parsing starts (and, should one get past that, when libxml2 meets it).
final class XMLScanner {
    private let handler: any XMLHandler
    private var thrown: (any Error)?
    private var sawDocumentType = false
    private var depth = 0
    private var sawRoot = false
    private let names = ElementNames()

    private init(handler: any XMLHandler) {
        self.handler = handler
    }

    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Runs `handler` over `data`, the content of `part`; a DTD, malformed XML, or the handler's own
    /// error ends the pass with that error.
    static func scan(_ data: Data, part: String, with handler: any XMLHandler) throws {
        // Office Open XML never has a DTD; refusing one keeps entity expansion out entirely.
        if declaresDocumentType(data) { throw XLSXError.documentTypeDeclaration(part: part) }
        guard data.count < Int(Int32.max) else { throw XLSXError.partTooLarge(part: part, limit: Int(Int32.max)) }
        _ = initialized
        let scanner = XMLScanner(handler: handler)
        var sax = xmlSAXHandler()
        sax.initialized = mi_xml_sax2_magic()
        // The scanner outlives the pass (`withExtendedLifetime` below), so the callbacks reach it
        // without taking a reference each time: they run for every element and text.
        sax.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
            guard let context, let localName else { return }
            Unmanaged<XMLScanner>.fromOpaque(context)._withUnsafeGuaranteedRef {
                $0.start(localName, XMLAttributes(pointers: attributes, count: Int(attributeCount)))
            }
        }
        sax.endElementNs = { context, localName, _, _ in
            guard let context, let localName else { return }
            Unmanaged<XMLScanner>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.end(localName) }
        }
        sax.characters = { context, bytes, length in
            guard let context, let bytes else { return }
            Unmanaged<XMLScanner>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.text(bytes, Int(length)) }
        }
        sax.cdataBlock = sax.characters
        sax.internalSubset = { context, _, _, _ in
            guard let context else { return }
            Unmanaged<XMLScanner>.fromOpaque(context).takeUnretainedValue().refuseDocumentType()
        }
        // Errors are read from the context afterwards; nothing is printed.
        sax.serror = { _, _ in }

        let line: Int
        let failure: String?
        (line, failure) = try withExtendedLifetime(scanner) {
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (Int, String?) in
                let bytes = raw.bindMemory(to: CChar.self)
                let head = min(4, bytes.count)
                guard let context = xmlCreatePushParserCtxt(&sax, Unmanaged.passUnretained(scanner).toOpaque(),
                                                            bytes.baseAddress, Int32(head), part) else {
                    throw XLSXError.malformedXML(part: part, line: 0, detail: "the XML parser could not start")
                }
                defer { xmlFreeParserCtxt(context) }
                scanner.context = context
                defer { scanner.context = nil }
                xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
                let status = xmlParseChunk(context, bytes.baseAddress.map { $0 + head }, Int32(bytes.count - head), 1)
                let line = Int(xmlSAX2GetLineNumber(context))
                if scanner.thrown != nil || scanner.sawDocumentType { return (line, nil) }
                guard status != 0 || context.pointee.wellFormed == 0 else { return (line, nil) }
                let errorLine = Int(mi_xml_last_error_line(context))
                // The data ran out inside an element (a truncated part): libxml2 calls it "extra content".
                if mi_xml_last_error_code(context) == Int32(XML_ERR_DOCUMENT_END.rawValue), scanner.depth > 0 {
                    return (errorLine > 0 ? errorLine : line, "it ends before its elements are closed")
                }
                let message = mi_xml_last_error_message(context).map { String(cString: $0) }?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return (errorLine > 0 ? errorLine : line, message ?? "the parser stopped")
            }
        }
        if scanner.sawDocumentType { throw XLSXError.documentTypeDeclaration(part: part) }
        if let thrown = scanner.thrown { throw thrown }
        if let failure { throw XLSXError.malformedXML(part: part, line: line, detail: failure) }
        if scanner.depth != 0 || !scanner.sawRoot {
            throw XLSXError.malformedXML(part: part, line: line,
                                         detail: scanner.sawRoot ? "it ends before its elements are closed" : "it has no root element")
        }
    }

    /// The parser running this scanner, to stop it when the handler throws.
    private var context: xmlParserCtxtPtr?

    /// A DOCTYPE got past the prolog check: the parser stops before reading its declarations.
    private func refuseDocumentType() {
        sawDocumentType = true
        if let context { xmlStopParser(context) }
    }

    private func stop(_ error: any Error) {
        thrown = error
        if let context { xmlStopParser(context) }
    }

    private func name(_ bytes: UnsafePointer<xmlChar>) -> String { names.name(bytes) }

    private func start(_ localName: UnsafePointer<xmlChar>, _ attributes: XMLAttributes) {
        depth += 1
        sawRoot = true
        guard thrown == nil else { return }
        do { try handler.start(name(localName), attributes: attributes) } catch { stop(error) }
    }

    private func end(_ localName: UnsafePointer<xmlChar>) {
        depth -= 1
        guard thrown == nil else { return }
        do { try handler.end(name(localName)) } catch { stop(error) }
    }

    private func text(_ bytes: UnsafePointer<xmlChar>, _ length: Int) {
        guard thrown == nil, handler.wantsText else { return }
        handler.text(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
    }

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
}

/// Element names made into Strings once per part (a part uses a handful). libxml2 hands a name
/// over as a pointer into its dictionary, the same pointer for every use of the name, so a slot is
/// found by the pointer; the bytes are compared too (a copy is kept), and a slot that does not
/// match is taken over by the new name. Kept in fixed buffers: this runs for every element.
private final class ElementNames {
    private static let slots = 64
    private let pointers = UnsafeMutablePointer<UnsafePointer<xmlChar>?>.allocate(capacity: slots)
    private let copies = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
    private let names = UnsafeMutablePointer<String>.allocate(capacity: slots)

    init() {
        pointers.initialize(repeating: nil, count: Self.slots)
        copies.initialize(repeating: nil, count: Self.slots)
        names.initialize(repeating: "", count: Self.slots)
    }

    deinit {
        for slot in 0..<Self.slots { free(copies[slot]) }
        names.deinitialize(count: Self.slots)
        pointers.deallocate()
        copies.deallocate()
        names.deallocate()
    }

    func name(_ bytes: UnsafePointer<xmlChar>) -> String {
        let slot = Int(truncatingIfNeeded: UInt(bitPattern: bytes) >> 3) & (Self.slots - 1)
        let cString = UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self)
        if pointers[slot] == bytes, let copy = copies[slot], strcmp(copy, cString) == 0 { return names[slot] }
        let name = String(cString: bytes)
        free(copies[slot])
        copies[slot] = strdup(cString)
        pointers[slot] = copies[slot] == nil ? nil : bytes
        names[slot] = name
        return name
    }
}
