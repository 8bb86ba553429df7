import CCurl
import Foundation

/// libcurl's process-wide setup, run once: a `static let` initializer runs exactly once, thread-safely,
/// before the first easy handle is made.
enum CurlGlobal {
    /// The `CURLcode` raw value `curl_global_init(CURL_GLOBAL_DEFAULT)` returned.
    static let initCode: UInt32 = mi_curl_global_init_default().rawValue

    static var isReady: Bool { initCode == CURLE_OK.rawValue }
}

/// One option for an easy handle, with the C type the libcurl manual names for it.
enum CurlOption: Equatable {
    case long(CURLoption, Int)
    case offset(CURLoption, Int64)
    case string(CURLoption, String)

    var option: CURLoption {
        switch self {
        case .long(let option, _), .offset(let option, _), .string(let option, _): return option
        }
    }
}

/// How a libcurl call failed: the code with `curl_easy_strerror`'s text and the handle's error buffer.
struct CurlFailure: Error {
    var code: CURLcode
    /// `curl_easy_strerror`, then the error buffer's text when libcurl wrote one.
    var detail: String
    /// `CURLINFO_OS_ERRNO` after a failed connect (0 when unknown).
    var osErrno: Int = 0
    /// Whether any of the request reached the wire before the failure (so the server may have acted on it).
    var requestSent: Bool = false
}

/// Owns one libcurl easy handle (freed in `deinit`). Not shared between threads: each `ServerClient`
/// makes its own, and uses it from the thread that calls it.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let errorBufferSize: Int

    init() throws {
        guard CurlGlobal.isReady else {
            let text = String(cString: curl_easy_strerror(CURLcode(rawValue: CurlGlobal.initCode)))
            throw TransportError.libcurl(detail: "curl_global_init failed: \(text)")
        }
        guard let handle = curl_easy_init() else {
            throw TransportError.libcurl(detail: "curl_easy_init returned no handle (out of memory?)")
        }
        self.handle = handle
        errorBufferSize = Int(mi_curl_error_size())
        errorBuffer = .allocate(capacity: errorBufferSize)
        errorBuffer.initialize(repeating: 0, count: errorBufferSize)
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Back to libcurl's defaults (keeping the connection cache), with the error buffer attached again.
    func reset() throws {
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        try check(mi_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)),
                  "CURLOPT_ERRORBUFFER")
    }

    func apply(_ options: [CurlOption]) throws {
        for option in options { try apply(option) }
    }

    func apply(_ option: CurlOption) throws {
        switch option {
        case .long(let name, let value):
            try check(mi_curl_setopt_long(handle, name, value), "option \(name.rawValue)")
        case .offset(let name, let value):
            try check(mi_curl_setopt_off(handle, name, curl_off_t(value)), "option \(name.rawValue)")
        case .string(let name, let value):
            // libcurl copies string arguments (except CURLOPT_POSTFIELDS, which is never used here).
            try check(mi_curl_setopt_string(handle, name, value), "option \(name.rawValue)")
        }
    }

    func setPointer(_ option: CURLoption, _ pointer: UnsafeMutableRawPointer?) throws {
        try check(mi_curl_setopt_pointer(handle, option, pointer), "option \(option.rawValue)")
    }

    func setHeaders(_ list: UnsafeMutablePointer<curl_slist>?) throws {
        try check(mi_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
    }

    func setMime(_ mime: OpaquePointer?) throws {
        try check(mi_curl_setopt_mime(handle, CURLOPT_MIMEPOST, mime), "CURLOPT_MIMEPOST")
    }

    func setWriteFunction(_ option: CURLoption, _ callback: curl_write_callback) throws {
        try check(mi_curl_setopt_write_callback(handle, option, callback), "option \(option.rawValue)")
    }

    func setReadFunction(_ callback: curl_read_callback) throws {
        try check(mi_curl_setopt_read_callback(handle, CURLOPT_READFUNCTION, callback), "CURLOPT_READFUNCTION")
    }

    func setProgressFunction(_ callback: curl_xferinfo_callback) throws {
        try check(mi_curl_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION, callback),
                  "CURLOPT_XFERINFOFUNCTION")
    }

    /// Runs the transfer; a failure carries libcurl's texts and whether a connection was made.
    func perform() -> CurlFailure? {
        errorBuffer[0] = 0
        let code = curl_easy_perform(handle)
        guard code != CURLE_OK else { return nil }
        var failure = CurlFailure(code: code, detail: describe(code))
        failure.osErrno = longInfo(CURLINFO_OS_ERRNO) ?? 0
        failure.requestSent = (longInfo(CURLINFO_REQUEST_SIZE) ?? 0) > 0 || (offsetInfo(CURLINFO_SIZE_UPLOAD_T) ?? 0) > 0
        return failure
    }

    func longInfo(_ info: CURLINFO) -> Int? {
        var value = 0
        guard mi_curl_getinfo_long(handle, info, &value) == CURLE_OK else { return nil }
        return value
    }

    func offsetInfo(_ info: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        guard mi_curl_getinfo_off(handle, info, &value) == CURLE_OK else { return nil }
        return Int64(value)
    }

    /// `curl_easy_strerror(code)`, then the error buffer's text when it says more.
    func describe(_ code: CURLcode) -> String {
        let summary = String(cString: curl_easy_strerror(code))
        let buffer = String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
        return buffer.isEmpty || buffer == summary ? summary : "\(summary): \(buffer)"
    }

    private func check(_ code: CURLcode, _ what: String) throws {
        guard code != CURLE_OK else { return }
        throw TransportError.libcurl(detail: "setting \(what) failed: \(describe(code))")
    }
}
