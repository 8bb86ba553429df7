/// Sizes as people read them, in IEC units (1 KiB = 1024 bytes): "512 B", "1.5 KiB",
/// "190.7 MiB". The one formatter for the CLI and the PDF, so both say the same of a file.
public enum ByteCount {
    static let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// `bytes` with one decimal above 1 KiB.
    public static func string(_ bytes: Int64) -> String {
        guard bytes >= 1024 || bytes <= -1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        // 1023.95 KiB would round to "1024.0 KiB": say "1.0 MiB" instead.
        if abs(value) >= 1023.95, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) \(units[unit])"
    }
}
