/// A request's `Range` header against a file of `size` bytes (RFC 9110 §14): one byte range
/// is served as 206; several ranges, another unit or a malformed header as the whole file
/// (servers may ignore Range); a single range that starts past the end as 416.
enum ByteRange: Equatable {
    /// Serve the whole file with 200.
    case whole
    /// Serve these bytes with 206.
    case partial(ClosedRange<Int64>)
    /// 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { self = .whole; return }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let ends = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, ends.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }) else { self = .whole; return }
        switch (Int64(ends[0]), Int64(ends[1])) {
        case (nil, nil):
            self = .whole
        case (nil, let suffix?):
            // The last `suffix` bytes.
            guard suffix > 0, size > 0 else { self = .unsatisfiable; return }
            self = .partial(max(0, size - suffix)...(size - 1))
        case (let first?, let last):
            if let last, last < first { self = .whole; return }
            guard first < size else { self = .unsatisfiable; return }
            self = .partial(first...min(last ?? (size - 1), size - 1))
        }
    }
}
