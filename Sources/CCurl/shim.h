#ifndef MI_CCURL_SHIM_H
#define MI_CCURL_SHIM_H

#include <curl/curl.h>

/*
 * curl_easy_setopt and curl_easy_getinfo are variadic, so Swift cannot call them.
 * One typed wrapper per argument type the manual names; each passes exactly that C type.
 */

/* CURLOPT_* options whose argument is a `long` (NOSIGNAL, CONNECTTIMEOUT, LOW_SPEED_*, …). */
static inline CURLcode mi_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_*_LARGE options whose argument is a `curl_off_t`. */
static inline CURLcode mi_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options whose argument is a `const char *` (URL, USERAGENT, CAINFO, COPYPOSTFIELDS, …). */
static inline CURLcode mi_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options whose argument is a `void *` / `char *` buffer (WRITEDATA, HEADERDATA, XFERINFODATA, ERRORBUFFER). */
static inline CURLcode mi_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_HTTPHEADER: a `struct curl_slist *`. */
static inline CURLcode mi_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_MIMEPOST: a `curl_mime *`. */
static inline CURLcode mi_curl_setopt_mime(CURL *handle, CURLoption option, curl_mime *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION: a `curl_write_callback`. */
static inline CURLcode mi_curl_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_READFUNCTION: a `curl_read_callback`. */
static inline CURLcode mi_curl_setopt_read_callback(CURL *handle, CURLoption option, curl_read_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_XFERINFOFUNCTION: a `curl_xferinfo_callback`. */
static inline CURLcode mi_curl_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                                        curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLINFO_* items answered as a `long` (RESPONSE_CODE, OS_ERRNO). */
static inline CURLcode mi_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLINFO_*_T items answered as a `curl_off_t` (SIZE_UPLOAD_T, CONNECT_TIME_T). */
static inline CURLcode mi_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURL_GLOBAL_DEFAULT is a macro expression Swift does not import. */
static inline CURLcode mi_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* The size CURLOPT_ERRORBUFFER must have. */
static inline size_t mi_curl_error_size(void) {
    return CURL_ERROR_SIZE;
}

#endif
