import Foundation

/// Everything an administrator tunes, read from Config.plist: the server, the directory,
/// the store root, expiry, reminders and the template JSON key names.
public struct Configuration: Sendable {
    /// The plist this configuration was read from.
    public var sourceURL: URL
    public var server: Server
    public var ldap: LDAP
    /// Root of the form store (absolute; a relative plist value is resolved against the plist's folder).
    public var documents: URL
    /// Incomplete forms older than this many days (by `createdAt`) are deleted.
    public var expiryDays: Int
    /// Days after a form's creation on which a reminder falls due.
    public var reminderDays: [Int]
    /// The JSON key names templates use.
    public var templateKeys: TemplateKeys
    /// Where positions come from (`Location`).
    public var location = Location()
    /// `Fill.Language`: the language forms are filled in when the template has it (a name such
    /// as `Español (es)`, or a code: `es`); nil: `LANG`'s, else the template's default.
    public var fillLanguage: String?

    /// `Location`: the gpsd a `geopoint` question and a `captureLocation` template take a fix from.
    public struct Location: Sendable, Equatable {
        /// `Location.GPSD`: gpsd's `HOST:PORT` (`HostPortText`), default `127.0.0.1:2947`.
        public var gpsd: String
        public static let defaultGPSD = "127.0.0.1:2947"
        public init(gpsd: String = Self.defaultGPSD) { self.gpsd = gpsd }
    }

    public struct Server: Sendable {
        public var scheme: String
        public var domain: String
        public var port: Int
        public var paths: Paths
        public var caFile: String?
        /// `mi-server` only.
        public var listen: String
        public var templatesDirectory: URL
        public var dataDirectory: URL
        public var maxUploadBytes: Int64
        public var tokenMinutes: Int
        /// Media files larger than this go through the resumable (tus) upload endpoint.
        public var resumableThresholdBytes: Int64
        /// `mi-server` only: hours after which an unfinished resumable upload is removed.
        public var resumableExpiryHours: Int
        /// `mi-server` only: how slow and how many connections a client may be.
        public var limits: Limits
        /// `mi-server` only: whether forms made by `mi simulate` are accepted (a demo or test
        /// server); a production server refuses them so they never mix with real inspections.
        public var acceptSimulated: Bool = false
        /// `mi-server` only: the PEM certificate chain and private key it serves HTTPS with
        /// (both set or neither; absolute paths). Nil: plain HTTP, for a server behind a proxy.
        public var tls: TLSFiles?
        /// `mi-server` only: SQLite in `dataDirectory` (the default) or a PostgreSQL database.
        public var database: DatabaseLocation = .sqlite
        /// `mi-server` only: the file holding the PostgreSQL user's password (its first line).
        public var databasePasswordFile: String?
        /// `mi-server` only: the session tokens' and office cookies' HMAC key file, for several
        /// mi-servers that must accept each other's sessions (nil: `signing.key` in `dataDirectory`).
        public var signingKeyFile: String?
        /// `mi-server` only: addresses of the proxies in front of it (nginx): for a connection
        /// from one of them, the client is the nearest untrusted address in `X-Forwarded-For`.
        public var trustedProxies: [String] = []

        /// `mi-server` only: where the PEM files for HTTPS are, read at start-up and on SIGHUP.
        public struct TLSFiles: Sendable, Equatable {
            /// The server's certificate, then any intermediates, in PEM.
            public var certificateFile: String
            /// The certificate's private key in PEM.
            public var keyFile: String

            /// The two files as given (paths already resolved).
            public init(certificateFile: String, keyFile: String) {
                self.certificateFile = certificateFile
                self.keyFile = keyFile
            }
        }

        /// `mi-server` only: the limits that keep slow, broken or greedy clients from holding it.
        public struct Limits: Sendable, Equatable {
            /// Seconds a client has to send a request's whole header block.
            public var headerTimeoutSeconds: Int
            /// Seconds a request body may go without receiving a byte.
            public var bodyTimeoutSeconds: Int
            /// The slowest average body rate accepted (bytes per second, measured over
            /// `bodyTimeoutSeconds`); 0 turns the check off.
            public var minimumBytesPerSecond: Int
            /// Open connections allowed from one client address.
            public var maxConnectionsPerAddress: Int
            /// Seconds a kept-alive connection may wait, with no request under way, for its next
            /// request before the server closes it (so idle connections do not use up an
            /// address's `maxConnectionsPerAddress`).
            public var idleTimeoutSeconds: Int

            /// The defaults: 10 s for headers, 30 s without body bytes, 1 KiB/s, 32 connections,
            /// 60 s idle.
            public static let defaults = Limits(headerTimeoutSeconds: 10, bodyTimeoutSeconds: 30,
                                                minimumBytesPerSecond: 1024, maxConnectionsPerAddress: 32,
                                                idleTimeoutSeconds: 60)

            /// Limits as given.
            public init(headerTimeoutSeconds: Int, bodyTimeoutSeconds: Int, minimumBytesPerSecond: Int,
                        maxConnectionsPerAddress: Int, idleTimeoutSeconds: Int = 60) {
                self.headerTimeoutSeconds = headerTimeoutSeconds
                self.bodyTimeoutSeconds = bodyTimeoutSeconds
                self.minimumBytesPerSecond = minimumBytesPerSecond
                self.maxConnectionsPerAddress = maxConnectionsPerAddress
                self.idleTimeoutSeconds = idleTimeoutSeconds
            }
        }

        public struct Paths: Sendable {
            public var templateList: String
            public var template: String
            public var session: String
            public var submit: String
            /// The tus 1.0 endpoint for resumable media uploads (`/api/v1/uploads`).
            public var uploads: String
        }

        /// The one place URLs are assembled: scheme, domain and port with a path from `Paths`.
        /// `{id}` in the path is replaced by the percent-encoded `id`; nil when the path needs
        /// an id and none is given.
        public func url(_ endpoint: Endpoint, id: String? = nil) -> URL? {
            let template: String
            switch endpoint {
            case .templateList: template = paths.templateList
            case .template: template = paths.template
            case .session: template = paths.session
            case .submit: template = paths.submit
            case .submission: template = paths.submit + "/{id}"
            case .uploads: template = paths.uploads
            case .health: template = "/health"
            // Beside the submissions: `/api/v1/returned` for `/api/v1/submissions`.
            case .returned: template = (paths.submit.hasSuffix("/") ? String(paths.submit.dropLast()) : paths.submit)
                .split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/returned"
            // The stored form.json, as the office serves it (to the bearer token too).
            case .submissionForm: template = "/submissions/{id}/form.json"
            }
            let literal = CharacterSet.urlPathAllowed
            let parts = template.components(separatedBy: "{id}")
            if parts.count > 1 && id == nil { return nil }
            let segment = CharacterSet.urlPathAllowed.subtracting(["/", ";"])
            let encodedID = id.map { $0.addingPercentEncoding(withAllowedCharacters: segment) ?? "" } ?? ""
            let encodedParts = parts.map { $0.addingPercentEncoding(withAllowedCharacters: literal) ?? "" }
            // Assembled as text and parsed: URLComponents' setters trap on characters they
            // refuse, URL(string:) answers nil.
            guard let first = scheme.unicodeScalars.first, CharacterSet.letters.contains(first),
                  scheme.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)) })
            else { return nil }
            let host = domain.contains(":") && domain.first != "[" ? "[\(domain)]" : domain
            return URL(string: "\(scheme)://\(host):\(port)\(encodedParts.joined(separator: encodedID))")
        }

        public enum Endpoint: Sendable { case templateList, template, session, submit, submission, uploads, health, returned, submissionForm }
    }

    public struct LDAP: Sendable {
        public var url: String
        public var startTLS: Bool
        public var caFile: String?
        public var baseDN: String
        public var userFilter: String
        public var bindDN: String?
        public var bindPasswordFile: String?
        public var foremanGroup: String
        /// DN of the group whose members may publish templates; nil when foremen may.
        public var adminGroup: String?
        public var groupMemberAttribute: String
        public var timeoutSeconds: Int

        /// The settings as Config.plist's `LDAP` dictionary gives them (paths already resolved).
        public init(url: String, startTLS: Bool, caFile: String?, baseDN: String, userFilter: String, bindDN: String?,
                    bindPasswordFile: String?, foremanGroup: String, adminGroup: String? = nil,
                    groupMemberAttribute: String, timeoutSeconds: Int) {
            self.url = url
            self.startTLS = startTLS
            self.caFile = caFile
            self.baseDN = baseDN
            self.userFilter = userFilter
            self.bindDN = bindDN
            self.bindPasswordFile = bindPasswordFile
            self.foremanGroup = foremanGroup
            self.adminGroup = adminGroup
            self.groupMemberAttribute = groupMemberAttribute
            self.timeoutSeconds = timeoutSeconds
        }
    }
}
