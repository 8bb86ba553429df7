/// `Content-Disposition` values for downloads: the office's and the API's alike.
enum ContentDisposition {
    /// `attachment` with the name as ASCII (quotes and controls replaced) and in UTF-8 (RFC 6266).
    static func attachment(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(FormQuery.encoded(name))"
    }
}
