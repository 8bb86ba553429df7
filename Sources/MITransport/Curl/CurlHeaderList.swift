import CCurl

/// Owns a `curl_slist` of request header lines (freed in `deinit`); keep it alive until the transfer ends.
final class CurlHeaderList {
    private(set) var list: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) throws {
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                throw TransportError.libcurl(detail: "curl_slist_append failed (out of memory?)")
            }
            list = appended
        }
    }

    deinit { curl_slist_free_all(list) }
}
