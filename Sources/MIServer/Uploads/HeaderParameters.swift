/// A header value of the form `token; key=value; key="quoted \" value"` (Content-Type,
/// Content-Disposition), parsed with quoted strings honoured so that names holding `;` or `=`
/// survive.
struct HeaderParameters: Equatable {
    /// The part before the first `;`, lowercased (`multipart/form-data`, `form-data`).
    var value: String
    /// Parameter names lowercased; values unquoted.
    var parameters: [String: String]

    init?(_ header: String) {
        var scalars = Substring(header).unicodeScalars[...]
        func skipSpaces() {
            while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        }
        func token() -> String {
            var text = ""
            while let first = scalars.first, first != ";", first != "=" {
                text.unicodeScalars.append(first)
                scalars.removeFirst()
            }
            return text.trimmingCharacters(in: .whitespaces)
        }
        skipSpaces()
        value = token().lowercased()
        parameters = [:]
        while let first = scalars.first {
            guard first == ";" else { return nil }
            scalars.removeFirst()
            skipSpaces()
            if scalars.isEmpty { break }
            let name = token().lowercased()
            guard !name.isEmpty, scalars.first == "=" else { return nil }
            scalars.removeFirst()
            skipSpaces()
            var parameter = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                var closed = false
                while let next = scalars.first {
                    scalars.removeFirst()
                    if next == "\"" { closed = true; break }
                    if next == "\\", let escaped = scalars.first {
                        scalars.removeFirst()
                        parameter.unicodeScalars.append(escaped)
                    } else {
                        parameter.unicodeScalars.append(next)
                    }
                }
                guard closed else { return nil }
                skipSpaces()
            } else {
                parameter = token()
            }
            parameters[name] = parameter
        }
    }
}
