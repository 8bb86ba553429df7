/*
 * CLDAP: OpenLDAP's libldap/liblber for Swift.
 *
 * Swift imports <ldap.h> except for what this file wraps: pointer-valued macros
 * (LDAP_OPT_ON/OFF), cast macros (LDAP_SCOPE_*), and ldap_set_option's untyped `void *`
 * argument, whose C type depends on the option (see ldap_set_option(3)).
 * LDAP_DEPRECATED is deliberately not defined.
 */
#ifndef MI_CLDAP_SHIM_H
#define MI_CLDAP_SHIM_H

#include <sys/time.h>
#include <lber.h>
#include <ldap.h>

/* Values of boolean options such as LDAP_OPT_REFERRALS: passed as the pointer itself. */
static inline void *mi_ldap_opt_on(void) { return LDAP_OPT_ON; }
static inline void *mi_ldap_opt_off(void) { return LDAP_OPT_OFF; }

/* Search scopes (cast macros do not import). */
static const int MI_LDAP_SCOPE_BASE = LDAP_SCOPE_BASE;
static const int MI_LDAP_SCOPE_SUBTREE = LDAP_SCOPE_SUBTREE;

/* ldap_set_option with the invalue type each option's manual names. */

/* `const int *`: LDAP_OPT_PROTOCOL_VERSION, LDAP_OPT_X_TLS_REQUIRE_CERT, LDAP_OPT_X_TLS_NEWCTX. */
static inline int mi_ldap_set_option_int(LDAP *ld, int option, int value) {
    return ldap_set_option(ld, option, &value);
}

/* `const char *`: LDAP_OPT_X_TLS_CACERTFILE and the other path options; NULL clears. */
static inline int mi_ldap_set_option_string(LDAP *ld, int option, const char *value) {
    return ldap_set_option(ld, option, value);
}

/* `const struct timeval *`: LDAP_OPT_NETWORK_TIMEOUT, LDAP_OPT_TIMEOUT. */
static inline int mi_ldap_set_option_timeval(LDAP *ld, int option, const struct timeval *value) {
    return ldap_set_option(ld, option, value);
}

/* The pointer itself is the value: LDAP_OPT_REFERRALS with mi_ldap_opt_on()/mi_ldap_opt_off(). */
static inline int mi_ldap_set_option_pointer(LDAP *ld, int option, const void *value) {
    return ldap_set_option(ld, option, value);
}

/*
 * The server's diagnostic message of the last failed operation on ld
 * (LDAP_OPT_DIAGNOSTIC_MESSAGE), or NULL. Free a non-NULL result with ldap_memfree.
 */
static inline char *mi_ldap_copy_diagnostic_message(LDAP *ld) {
    char *message = NULL;
    if (ldap_get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &message) != LDAP_OPT_SUCCESS) {
        return NULL;
    }
    return message;
}

#endif /* MI_CLDAP_SHIM_H */
