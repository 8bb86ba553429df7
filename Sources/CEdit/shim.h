#ifndef MI_CEDIT_SHIM_H
#define MI_CEDIT_SHIM_H

#include <histedit.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <string.h>

/*
 * el_set, el_get and history are variadic, so Swift cannot call them. One typed wrapper per
 * operation MI uses; each passes exactly the C types histedit.h names for it.
 */

/* el_init on the process's standard streams (Swift 6 cannot read C's stdin/stdout globals). */
static inline EditLine *mi_el_init(const char *program) {
    return el_init(program, stdin, stdout, stderr);
}

/* EL_EDITOR: "emacs" or "vi". */
static inline int mi_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}

/* EL_PROMPT: the function that returns the prompt to show. */
static inline int mi_el_set_prompt(EditLine *el, char *(*prompt)(EditLine *)) {
    return el_set(el, EL_PROMPT, prompt);
}

/* EL_CLIENTDATA: the pointer callbacks get back through mi_el_clientdata. */
static inline int mi_el_set_clientdata(EditLine *el, void *data) {
    return el_set(el, EL_CLIENTDATA, data);
}

static inline void *mi_el_clientdata(EditLine *el) {
    void *data = NULL;
    if (el_get(el, EL_CLIENTDATA, &data) != 0) return NULL;
    return data;
}

/* EL_HIST: the history the arrow keys walk. */
static inline int mi_el_set_history(EditLine *el, History *history_) {
    return el_set(el, EL_HIST, history, history_);
}

/* EL_ADDFN: a named editor function that can be bound to a key. */
static inline int mi_el_add_function(EditLine *el, const char *name, const char *help,
                                     unsigned char (*function)(EditLine *, int)) {
    return el_set(el, EL_ADDFN, name, help, function);
}

/* EL_BIND: one key sequence (in bind(1) notation, e.g. "\\e[H" or "^W") to one function. */
static inline int mi_el_bind(EditLine *el, const char *keys, const char *function) {
    return el_set(el, EL_BIND, keys, function, NULL);
}

/* H_SETSIZE: how many entries the history keeps. */
static inline int mi_history_set_size(History *history_, int size) {
    HistEvent event;
    return history(history_, &event, H_SETSIZE, size);
}

/* H_SETUNIQUE: a line equal to the previous one is not entered twice. */
static inline int mi_history_set_unique(History *history_, int unique) {
    HistEvent event;
    return history(history_, &event, H_SETUNIQUE, unique);
}

/* H_ENTER: adds a line. */
static inline int mi_history_enter(History *history_, const char *line) {
    HistEvent event;
    return history(history_, &event, H_ENTER, line);
}

/* The return codes of editor functions (CC_* are macros of `int` type; Swift wants the byte). */
static inline unsigned char mi_el_refresh(void) { return CC_REFRESH; }
static inline unsigned char mi_el_redisplay(void) { return CC_REDISPLAY; }
static inline unsigned char mi_el_error(void) { return CC_ERROR; }

/*
 * libedit decodes what is typed with the C library's multibyte functions, which read only
 * ASCII until LC_CTYPE is set. Takes the environment's locale, or C.UTF-8 when that one is not
 * UTF-8 (a bare C locale would drop every ü and é typed). Returns 0 when UTF-8 is in effect.
 */
static inline int mi_edit_use_utf8_ctype(void) {
    const char *set = setlocale(LC_CTYPE, "");
    if (set != NULL && strcmp(nl_langinfo(CODESET), "UTF-8") == 0) return 0;
    if (setlocale(LC_CTYPE, "C.UTF-8") != NULL && strcmp(nl_langinfo(CODESET), "UTF-8") == 0) return 0;
    return -1;
}

#endif
