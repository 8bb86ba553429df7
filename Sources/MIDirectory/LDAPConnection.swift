import CLDAP
import Glibc

/// Owns one libldap handle (`LDAP *`) and turns its return codes into `LDAPStatus`.
///
/// A handle must never be shared between threads, so each directory operation opens its own
/// connection; `deinit` unbinds and frees it. libldap connects lazily: the first bind or
/// StartTLS is what reaches the server.
final class LDAPConnection {
    enum Scope {
        case base
        case subtree

        var value: Int32 {
            switch self {
            case .base: MI_LDAP_SCOPE_BASE
            case .subtree: MI_LDAP_SCOPE_SUBTREE
            }
        }
    }

    private let handle: OpaquePointer
    private let timeout: timeval

    /// Creates the handle for `url` and sets every option explicitly, because libldap's
    /// defaults (LDAPv2, no timeouts, referral chasing) and its `ldaprc`/`LDAPTLS_*` inputs
    /// must not decide how MI talks to the directory.
    init(url: String, caFile: String?, timeoutSeconds: Int) throws(LDAPStatus) {
        var handle: OpaquePointer?
        let code = ldap_initialize(&handle, url)
        guard code == LDAP_SUCCESS, let handle else {
            let failure = code == LDAP_SUCCESS ? LDAP_LOCAL_ERROR : code
            throw LDAPStatus(code: failure, diagnostic: "cannot use URL \(url)")
        }
        self.handle = handle
        self.timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        try setOptions(caFile: caFile)
    }

    deinit {
        ldap_unbind_ext_s(handle, nil, nil)
    }

    private func setOptions(caFile: String?) throws(LDAPStatus) {
        var timeout = timeout
        try setOption(
            "LDAP_OPT_PROTOCOL_VERSION", mi_ldap_set_option_int(handle, LDAP_OPT_PROTOCOL_VERSION, LDAP_VERSION3))
        try setOption(
            "LDAP_OPT_NETWORK_TIMEOUT", mi_ldap_set_option_timeval(handle, LDAP_OPT_NETWORK_TIMEOUT, &timeout))
        try setOption("LDAP_OPT_TIMEOUT", mi_ldap_set_option_timeval(handle, LDAP_OPT_TIMEOUT, &timeout))
        try setOption(
            "LDAP_OPT_REFERRALS", mi_ldap_set_option_pointer(handle, LDAP_OPT_REFERRALS, mi_ldap_opt_off()))
        try setOption(
            "LDAP_OPT_X_TLS_REQUIRE_CERT",
            mi_ldap_set_option_int(handle, LDAP_OPT_X_TLS_REQUIRE_CERT, LDAP_OPT_X_TLS_DEMAND))
        if let caFile {
            try setOption(
                "LDAP_OPT_X_TLS_CACERTFILE", mi_ldap_set_option_string(handle, LDAP_OPT_X_TLS_CACERTFILE, caFile))
        }
        // The TLS options above only take effect in a new TLS context (0: a client's).
        try setOption("LDAP_OPT_X_TLS_NEWCTX", mi_ldap_set_option_int(handle, LDAP_OPT_X_TLS_NEWCTX, 0))
    }

    /// Upgrades the connection to TLS; the certificate must verify against the CA.
    func startTLS() throws(LDAPStatus) {
        try perform { ldap_start_tls_s(handle, nil, nil) }
    }

    /// Simple bind (`LDAP_SASL_SIMPLE`); anonymous when `dn` is nil and `password` empty.
    /// The password is passed as its UTF-8 bytes with their length, so any character works.
    func bind(dn: String?, password: String) throws(LDAPStatus) {
        var bytes = Array(password.utf8)
        try perform {
            bytes.withUnsafeMutableBytes { buffer in
                var credential = berval(
                    bv_len: ber_len_t(buffer.count),
                    bv_val: buffer.baseAddress?.assumingMemoryBound(to: CChar.self))
                // A nil mechanism is LDAP_SASL_SIMPLE, a macro Swift cannot import.
                return ldap_sasl_bind_s(handle, dn, nil, &credential, nil, nil, nil)
            }
        }
    }

    /// `ldap_search_ext_s` returning the entries with the values of `attributes`.
    func search(
        base: String, scope: Scope, filter: String, attributes: [String]
    ) throws(LDAPStatus) -> [LDAPEntry] {
        var result: OpaquePointer?
        var timeLimit = timeout
        // The result must be freed even when the search failed.
        defer { if let result { ldap_msgfree(result) } }
        try perform {
            Self.withCStringArray(attributes) { names in
                ldap_search_ext_s(handle, base, scope.value, filter, names, 0, nil, nil, &timeLimit, 0, &result)
            }
        }
        var entries: [LDAPEntry] = []
        var entry = result.flatMap { ldap_first_entry(handle, $0) }
        while let current = entry {
            var values: [String: [String]] = [:]
            for name in attributes {
                values[name] = self.values(of: current, attribute: name)
            }
            entries.append(LDAPEntry(dn: try dn(of: current), attributes: values))
            entry = ldap_next_entry(handle, current)
        }
        return entries
    }

    private func dn(of entry: OpaquePointer) throws(LDAPStatus) -> String {
        guard let dn = ldap_get_dn(handle, entry) else {
            throw LDAPStatus(code: LDAP_DECODING_ERROR, diagnostic: "an entry without a DN")
        }
        defer { ldap_memfree(dn) }
        return String(cString: dn)
    }

    private func values(of entry: OpaquePointer, attribute: String) -> [String] {
        guard let list = ldap_get_values_len(handle, entry, attribute) else { return [] }
        defer { ldap_value_free_len(list) }
        var values: [String] = []
        var index = 0
        while let value = list[index] {
            let bytes = UnsafeRawBufferPointer(start: value.pointee.bv_val, count: Int(value.pointee.bv_len))
            values.append(String(decoding: bytes, as: UTF8.self))
            index += 1
        }
        return values
    }

    /// Runs one libldap call and throws its failure. `errno` is kept too: for
    /// `LDAP_SERVER_DOWN` it is the only thing telling a refused connection from a timeout.
    private func perform(_ call: () -> Int32) throws(LDAPStatus) {
        errno = 0
        let code = call()
        let systemError = errno
        guard code != LDAP_SUCCESS else { return }
        throw LDAPStatus(code: code, diagnostic: diagnosticMessage(), systemError: systemError)
    }

    private func setOption(_ name: String, _ result: Int32) throws(LDAPStatus) {
        guard result != LDAP_OPT_SUCCESS else { return }
        let diagnostic = diagnosticMessage()
        let text = diagnostic.isEmpty ? "cannot set \(name)" : "cannot set \(name): \(diagnostic)"
        throw LDAPStatus(code: LDAP_LOCAL_ERROR, diagnostic: text)
    }

    private func diagnosticMessage() -> String {
        guard let message = mi_ldap_copy_diagnostic_message(handle) else { return "" }
        defer { ldap_memfree(message) }
        return String(cString: message)
    }

    /// A NULL-terminated `char *[]` copy of `strings`, valid during `body`.
    private static func withCStringArray<Result>(
        _ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            array[index] = strdup(string)
        }
        array[strings.count] = nil
        defer {
            for index in 0..<strings.count {
                free(array[index])
            }
            array.deallocate()
        }
        return body(array)
    }
}
