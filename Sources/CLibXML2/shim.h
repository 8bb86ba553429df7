/*
 * CLibXML2: libxml2's SAX2 push parser for Swift (MIXLSForm's XMLScanner).
 *
 * Swift imports <libxml/parser.h> as it is (without ICU, see below); this file only adds what
 * does not import: the XML_SAX2_MAGIC marker (a hexadecimal macro too large for Int32) and the
 * parser context's last error as plain values.
 */
#ifndef MI_CLIBXML2_SHIM_H
#define MI_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
/*
 * Debian builds libxml2 with ICU, so <libxml/encoding.h> would include the system's ICU headers,
 * whose declarations clash with the copy of ICU Foundation carries (_FoundationICU). Nothing here
 * touches libxml2's ICU converters (only pointers to the structure holding them), so they are left out.
 */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

/* The `initialized` value that makes a handler's startElementNs/endElementNs (SAX2) used. */
static inline unsigned int mi_xml_sax2_magic(void) { return XML_SAX2_MAGIC; }

/* The message of the context's last error (NULL when none); it ends with a newline. */
static inline const char *mi_xml_last_error_message(xmlParserCtxtPtr ctxt) {
    xmlErrorPtr error = xmlCtxtGetLastError(ctxt);
    return error != NULL ? error->message : NULL;
}

/* The xmlParserErrors code of the context's last error (0 when none). */
static inline int mi_xml_last_error_code(xmlParserCtxtPtr ctxt) {
    xmlErrorPtr error = xmlCtxtGetLastError(ctxt);
    return error != NULL ? error->code : 0;
}

/* The line of the context's last error (0 when none). */
static inline int mi_xml_last_error_line(xmlParserCtxtPtr ctxt) {
    xmlErrorPtr error = xmlCtxtGetLastError(ctxt);
    return error != NULL ? error->line : 0;
}

#endif /* MI_CLIBXML2_SHIM_H */
