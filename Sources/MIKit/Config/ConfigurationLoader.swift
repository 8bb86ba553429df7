import Foundation

/// Finds, reads and validates Config.plist.
public enum ConfigurationLoader {
    /// The environment variable that names another Config.plist.
    public static let environmentVariable = "MI_CONFIG"

    /// Where the configuration comes from: `--config`, then `MI_CONFIG`, then `./Config.plist`,
    /// `$XDG_CONFIG_HOME/mi/Config.plist` (`~/.config/mi/`), `/etc/mi/Config.plist`.
    public static func locate(explicitPath: String?, environment: [String: String],
                              currentDirectory: URL) throws -> URL {
        if let explicitPath { return resolve(explicitPath, against: currentDirectory) }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            return resolve(fromEnvironment, against: currentDirectory)
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? home?.appendingPathComponent(".config")
        var candidates = [currentDirectory.appendingPathComponent("Config.plist")]
        if let configHome { candidates.append(configHome.appendingPathComponent("mi/Config.plist")) }
        candidates.append(URL(fileURLWithPath: "/etc/mi/Config.plist"))
        if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            return found
        }
        let list = candidates.map(\.path).joined(separator: ", ")
        throw ConfigurationError(url: nil, problems: [ConfigurationProblem(
            "", "no Config.plist found (looked in \(list)) — pass --config PATH or set MI_CONFIG")])
    }

    /// Reads and validates, throwing every error found at once.
    public static func load(from url: URL) throws -> Configuration {
        try check(url).requireConfiguration()
    }

    /// Reads and validates, never throwing: the report holds the configuration when it has no errors.
    public static func check(_ url: URL) -> ConfigurationReport {
        guard FileManager.default.fileExists(atPath: url.path) else {
            return ConfigurationReport(url: url, configuration: nil, problems: [
                ConfigurationProblem("", "\(url.path) does not exist — pass --config PATH or set MI_CONFIG to your Config.plist")])
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            return ConfigurationReport(url: url, configuration: nil, problems: [
                ConfigurationProblem("", "cannot read \(url.path): \(describe(error))")])
        }
        return check(data, source: url)
    }

    /// Validates plist bytes (XML or binary) read from `source`.
    public static func check(_ data: Data, source: URL) -> ConfigurationReport {
        let root: PlistValue
        do {
            root = try PropertyListDecoder().decode(PlistValue.self, from: data)
        } catch {
            return ConfigurationReport(url: source, configuration: nil, problems: [
                ConfigurationProblem("", "not a valid property list (XML or binary): \(describe(error))")])
        }
        guard case .dictionary(let top) = root else {
            return ConfigurationReport(url: source, configuration: nil, problems: [
                ConfigurationProblem("", "the top level must be a dictionary, found \(root.kindDescription)")])
        }
        let problems = ProblemList()
        let configuration = read(PlistReader(top, problems: problems), folder: source.deletingLastPathComponent(),
                                 source: source)
        let hasErrors = problems.all.contains { $0.severity == .error }
        return ConfigurationReport(url: source, configuration: hasErrors ? nil : configuration, problems: problems.all)
    }

    // MARK: - Reading

    private static func read(_ root: PlistReader, folder: URL, source: URL) -> Configuration? {
        let server = root.dictionary("Server").flatMap { readServer($0, folder: folder) }
        let ldap = root.dictionary("LDAP").flatMap { readLDAP($0, folder: folder) }

        let documents = root.string("Documents").map { resolve($0, against: folder) }
        let expiryDays = root.integer("ExpiryDays")
        if let expiryDays, expiryDays < 1 { root.error("ExpiryDays", "must be at least 1, found \(expiryDays)") }
        let reminderDays = root.integers("ReminderDays")
        if let reminderDays {
            for (index, day) in reminderDays.enumerated() where day < 1 {
                root.error("ReminderDays[\(index)]", "must be at least 1 (days after the form was started), found \(day)")
            }
            if let expiryDays {
                for (index, day) in reminderDays.enumerated() where day >= expiryDays {
                    root.warning("ReminderDays[\(index)]",
                                 "day \(day) is not before expiry (ExpiryDays \(expiryDays)): the form is gone by then")
                }
            }
            if Set(reminderDays).count != reminderDays.count { root.warning("ReminderDays", "lists a day twice") }
        }
        let templateKeys = root.dictionary("TemplateKeys", required: false).map(readTemplateKeys) ?? .default
        let location = root.dictionary("Location", required: false).map(readLocation) ?? Configuration.Location()
        var fillLanguage: String?
        if let fill = root.dictionary("Fill", required: false) {
            if let language = fill.string("Language", required: false) {
                let trimmed = language.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || (try? TextRules.check(trimmed, field: "Fill.Language")) == nil {
                    fill.error("Language", "expected a language name or code such as es or \"Español (es)\"")
                } else {
                    fillLanguage = trimmed
                }
            }
            fill.warnAboutUnknownKeys()
        }
        root.warnAboutUnknownKeys()

        guard let server, let ldap, let documents, let expiryDays, let reminderDays else { return nil }
        var configuration = Configuration(sourceURL: source, server: server, ldap: ldap, documents: documents,
                                          expiryDays: expiryDays, reminderDays: Array(Set(reminderDays)).sorted(),
                                          templateKeys: templateKeys)
        configuration.location = location
        configuration.fillLanguage = fillLanguage
        return configuration
    }

    /// `Location`: `GPSD` is gpsd's `HOST:PORT` (default 127.0.0.1:2947).
    private static func readLocation(_ reader: PlistReader) -> Configuration.Location {
        var location = Configuration.Location()
        if let gpsd = reader.string("GPSD", required: false) {
            switch HostPortText.parse(gpsd, defaultPort: 2947) {
            case .success: location.gpsd = gpsd.trimmingCharacters(in: .whitespaces)
            case .failure(let problem):
                reader.error("GPSD", "\"\(SafeName.printable(String(gpsd.prefix(80))))\" is not gpsd's address: \(problem.reason) — write HOST:PORT, e.g. 127.0.0.1:2947")
            }
        }
        reader.warnAboutUnknownKeys()
        return location
    }

    private static func readServer(_ reader: PlistReader, folder: URL) -> Configuration.Server? {
        let scheme = reader.string("Scheme")
        if let scheme, !["http", "https"].contains(scheme) {
            reader.error("Scheme", "must be \"http\" or \"https\", found \"\(scheme)\"")
        }
        let domain = reader.string("Domain")
        if let domain, domain.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
            reader.error("Domain", "must be a host name only (no scheme, port or path), found \"\(domain)\"")
        }
        let port = reader.integer("Port")
        if let port, !(1...65535).contains(port) { reader.error("Port", "must be between 1 and 65535, found \(port)") }

        let defaults = (templateList: "/api/v1/templates", template: "/api/v1/templates/{id}",
                        session: "/api/v1/session", submit: "/api/v1/submissions", uploads: "/api/v1/uploads")
        var paths = Configuration.Server.Paths(templateList: defaults.templateList, template: defaults.template,
                                                session: defaults.session, submit: defaults.submit,
                                                uploads: defaults.uploads)
        if let pathsReader = reader.dictionary("Paths", required: false) {
            func path(_ key: String, _ fallback: String) -> String {
                guard let value = pathsReader.string(key, required: false) else { return fallback }
                if !value.hasPrefix("/") {
                    pathsReader.error(key, "must start with \"/\", found \"\(value)\"")
                } else if value.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" || $0 == "%" }) {
                    pathsReader.error(key, "must be a plain path (no spaces, ?, # or %), found \"\(value)\"")
                }
                return value
            }
            paths.templateList = path("TemplateList", defaults.templateList)
            paths.template = path("Template", defaults.template)
            if !paths.template.contains("{id}") {
                pathsReader.error("Template", "must contain {id} where the template id goes")
            }
            paths.session = path("Session", defaults.session)
            paths.submit = path("Submit", defaults.submit)
            paths.uploads = path("Uploads", defaults.uploads)
            pathsReader.warnAboutUnknownKeys()
        }
        let caFile = reader.string("CAFile", required: false).map { resolve($0, against: folder).path }
        let listen = reader.string("Listen", required: false) ?? "127.0.0.1:8080"
        if listenAddress(listen) == nil {
            reader.error("Listen", "expected HOST:PORT, found \"\(listen)\"")
        }
        let templatesDirectory = resolve(reader.string("TemplatesDirectory", required: false) ?? "ServerTemplates",
                                         against: folder)
        let dataDirectory = resolve(reader.string("DataDirectory", required: false) ?? "ServerData", against: folder)
        let maxUploadBytes = reader.integer("MaxUploadBytes", required: false) ?? 2 << 30
        if maxUploadBytes < 1 { reader.error("MaxUploadBytes", "must be positive, found \(maxUploadBytes)") }
        let tokenMinutes = reader.integer("TokenMinutes", required: false) ?? 480
        if tokenMinutes < 1 { reader.error("TokenMinutes", "must be positive, found \(tokenMinutes)") }
        let threshold = reader.integer("ResumableThresholdBytes", required: false) ?? 8 << 20
        if threshold < 1 { reader.error("ResumableThresholdBytes", "must be positive, found \(threshold)") }
        let expiryHours = reader.integer("ResumableExpiryHours", required: false) ?? 24
        if !(1...8760).contains(expiryHours) {
            reader.error("ResumableExpiryHours", "must be between 1 and 8760 (a year), found \(expiryHours)")
        }
        let defaultLimits = Configuration.Server.Limits.defaults
        func limit(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) -> Int {
            let value = reader.integer(key, required: false) ?? fallback
            if !range.contains(value) {
                reader.error(key, "must be between \(range.lowerBound) and \(range.upperBound), found \(value)")
            }
            return value
        }
        let limits = Configuration.Server.Limits(
            headerTimeoutSeconds: limit("HeaderTimeoutSeconds", defaultLimits.headerTimeoutSeconds, 1...3600),
            bodyTimeoutSeconds: limit("BodyTimeoutSeconds", defaultLimits.bodyTimeoutSeconds, 1...3600),
            minimumBytesPerSecond: limit("MinimumBytesPerSecond", defaultLimits.minimumBytesPerSecond, 0...(1 << 30)),
            maxConnectionsPerAddress: limit("MaxConnectionsPerAddress", defaultLimits.maxConnectionsPerAddress, 1...100_000),
            idleTimeoutSeconds: limit("IdleTimeoutSeconds", defaultLimits.idleTimeoutSeconds, 1...3600))
        let acceptSimulated = reader.bool("AcceptSimulated", required: false) ?? false
        let tls = readTLSFiles(reader, folder: folder)
        var database = DatabaseLocation.sqlite
        if let value = reader.string("Database", required: false) {
            switch DatabaseLocation.parse(value, relativeTo: folder) {
            case .success(let location): database = location
            case .failure(let problem): reader.error("Database", problem.message)
            }
        }
        let databasePasswordFile = reader.string("DatabasePasswordFile", required: false)
            .map { resolve($0, against: folder).path }
        if databasePasswordFile != nil, database == .sqlite {
            reader.warning("DatabasePasswordFile", "ignored: Server.Database is not a postgres:// URL")
        }
        let signingKeyFile = reader.string("SigningKeyFile", required: false).map { resolve($0, against: folder).path }
        var trustedProxies: [String] = []
        for (index, address) in (reader.strings("TrustedProxies", required: false) ?? []).enumerated() {
            if let canonical = IPAddressText.canonical(address) {
                trustedProxies.append(canonical)
            } else {
                reader.error("TrustedProxies[\(index)]", "\"\(address)\" is not an IP address (like 127.0.0.1 or ::1; names and ranges are not accepted)")
            }
        }
        reader.warnAboutUnknownKeys()

        guard let scheme, let domain, let port else { return nil }
        return Configuration.Server(scheme: scheme, domain: domain, port: port, paths: paths, caFile: caFile,
                                    listen: listen, templatesDirectory: templatesDirectory,
                                    dataDirectory: dataDirectory, maxUploadBytes: Int64(maxUploadBytes),
                                    tokenMinutes: tokenMinutes, resumableThresholdBytes: Int64(threshold),
                                    resumableExpiryHours: expiryHours, limits: limits,
                                    acceptSimulated: acceptSimulated, tls: tls, database: database,
                                    databasePasswordFile: databasePasswordFile, signingKeyFile: signingKeyFile,
                                    trustedProxies: trustedProxies)
    }

    /// `Server.TLSCertificateFile` and `Server.TLSKeyFile`: both or neither, since a certificate
    /// without its key (or a key alone) cannot serve HTTPS.
    private static func readTLSFiles(_ reader: PlistReader, folder: URL) -> Configuration.Server.TLSFiles? {
        let certificate = reader.string("TLSCertificateFile", required: false)
        let key = reader.string("TLSKeyFile", required: false)
        switch (certificate, key) {
        case (let certificate?, let key?):
            return Configuration.Server.TLSFiles(certificateFile: resolve(certificate, against: folder).path,
                                                 keyFile: resolve(key, against: folder).path)
        case (_?, nil) where !reader.keys.contains("TLSKeyFile"):
            reader.error("TLSKeyFile", "missing: TLSCertificateFile is set, so the certificate's private key (PEM) is needed to serve HTTPS")
        case (nil, _?) where !reader.keys.contains("TLSCertificateFile"):
            reader.error("TLSCertificateFile", "missing: TLSKeyFile is set, so the certificate (PEM) it belongs to is needed to serve HTTPS")
        default:
            break
        }
        return nil
    }

    private static func readLDAP(_ reader: PlistReader, folder: URL) -> Configuration.LDAP? {
        let url = reader.string("URL")
        if let url, let problem = LDAPRules.url(url) { reader.error("URL", problem) }
        let startTLS = reader.bool("StartTLS", required: false) ?? false
        if let url, let problem = LDAPRules.startTLS(startTLS, url: url) { reader.error("StartTLS", problem) }
        let caFile = reader.string("CAFile", required: false).map { resolve($0, against: folder).path }
        let baseDN = reader.string("BaseDN")
        let userFilter = reader.string("UserFilter")
        if let userFilter, let problem = LDAPRules.userFilter(userFilter) { reader.error("UserFilter", problem) }
        let bindDN = reader.string("BindDN", required: false)
        let bindPasswordFile = reader.string("BindPasswordFile", required: false).map { resolve($0, against: folder).path }
        if bindDN != nil, bindPasswordFile == nil {
            reader.error("BindPasswordFile", "missing: BindDN is set, so the service account's password file is needed")
        }
        let foremanGroup = reader.string("ForemanGroup")
        let adminGroup = reader.string("AdminGroup", required: false)
        let groupMemberAttribute = reader.string("GroupMemberAttribute")
        if let groupMemberAttribute, let problem = LDAPRules.groupMemberAttribute(groupMemberAttribute) {
            reader.error("GroupMemberAttribute", problem)
        }
        let timeout = reader.integer("TimeoutSeconds", required: false) ?? 10
        if let problem = LDAPRules.timeoutSeconds(timeout) { reader.error("TimeoutSeconds", problem) }
        reader.warnAboutUnknownKeys()

        guard let url, let baseDN, let userFilter, let foremanGroup, let groupMemberAttribute else { return nil }
        return Configuration.LDAP(url: url, startTLS: startTLS, caFile: caFile, baseDN: baseDN, userFilter: userFilter,
                                  bindDN: bindDN, bindPasswordFile: bindPasswordFile, foremanGroup: foremanGroup,
                                  adminGroup: adminGroup, groupMemberAttribute: groupMemberAttribute, timeoutSeconds: timeout)
    }

    private static func readTemplateKeys(_ reader: PlistReader) -> TemplateKeys {
        var names: [TemplateKeys.Key: String] = [:]
        for key in reader.keys {
            guard let logical = TemplateKeys.Key(rawValue: key) else {
                let known = TemplateKeys.Key.allCases.map(\.rawValue).joined(separator: ", ")
                reader.warning(key, "unknown template key, ignored (known: \(known))")
                continue
            }
            if let name = reader.string(key) { names[logical] = name }
        }
        let keys = TemplateKeys(names: names)
        for (first, second, name) in keys.conflicts() {
            reader.error(second.rawValue, "\"\(name)\" is also the name of \(first.rawValue)")
        }
        return keys
    }

    // MARK: - Helpers

    /// `HOST:PORT` of `Server.Listen`.
    public static func listenAddress(_ listen: String) -> (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":") else { return nil }
        let host = String(listen[..<colon])
        guard !host.isEmpty, let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        return (host, port)
    }

    static func resolve(_ path: String, against folder: URL) -> URL {
        var expanded = path
        if path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            expanded = home + path.dropFirst()
        }
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded).standardizedFileURL }
        return folder.appendingPathComponent(expanded).standardizedFileURL
    }

    private static func describe(_ error: Error) -> String {
        if let decoding = error as? DecodingError, case .dataCorrupted(let context) = decoding {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return (error as NSError).localizedDescription
    }
}
