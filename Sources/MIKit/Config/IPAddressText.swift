import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// IP address literals as written in Config.plist and in `X-Forwarded-For`.
public enum IPAddressText {
    /// The address in its canonical text (`::1` for `0:0:0:0:0:0:0:1`), or nil when `text` is
    /// not an IPv4 or IPv6 address literal.
    public static func canonical(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // 16 bytes hold either family's binary form.
        var binary = [UInt8](repeating: 0, count: 16)
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        for family in [AF_INET, AF_INET6] where inet_pton(family, trimmed, &binary) == 1 {
            guard inet_ntop(family, binary, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}
