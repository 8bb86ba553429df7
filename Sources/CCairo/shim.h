#ifndef MI_CCAIRO_SHIM_H
#define MI_CCAIRO_SHIM_H

#include <stdlib.h>
#include <string.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>

/// Attaches a copy of `data` (a whole JPEG file) to `surface` as its CAIRO_MIME_TYPE_JPEG
/// data, so that cairo's PDF backend embeds the JPEG as it is (DCTDecode) instead of
/// re-encoding the surface's pixels. The copy is freed by cairo when the surface goes away.
static inline cairo_status_t mi_cairo_surface_attach_jpeg(cairo_surface_t *surface,
                                                          const unsigned char *data,
                                                          unsigned long length) {
    unsigned char *copy = malloc(length > 0 ? length : 1);
    if (copy == NULL) return CAIRO_STATUS_NO_MEMORY;
    memcpy(copy, data, length);
    cairo_status_t status = cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, copy, length, free, copy);
    if (status != CAIRO_STATUS_SUCCESS) free(copy);
    return status;
}

/// PANGO_SCALE as a typed constant.
static inline int mi_pango_scale(void) { return PANGO_SCALE; }

/// g_object_unref for a PangoLayout (a gpointer parameter does not take a typed pointer).
static inline void mi_pango_layout_release(PangoLayout *layout) { g_object_unref(layout); }

#endif
