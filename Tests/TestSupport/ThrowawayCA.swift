import Foundation

/// A certificate authority made for one test with the `openssl` command line, and the server
/// certificates it issues: what an organisation's own CA does, in a temporary folder.
public final class ThrowawayCA: @unchecked Sendable {
    /// A PEM certificate with its unencrypted PEM key.
    public struct Issued: Sendable {
        public let certificate: URL
        public let key: URL
    }

    /// The CA's own certificate (PEM): what `Server.CAFile` names.
    public let certificate: URL
    private let key: URL
    private let folder: URL

    /// Makes a CA called `name` (its certificate's common name) in `folder`.
    public init(name: String, in folder: URL) throws {
        self.folder = folder
        certificate = folder.appendingPathComponent("\(name)-ca.pem")
        key = folder.appendingPathComponent("\(name)-ca.key")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                          "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=\(name) test CA"])
    }

    /// A server certificate named `name` for `hosts` (IP addresses or DNS names, as subject
    /// alternative names); an expired one ended a day before it began.
    public func issue(_ name: String, hosts: [String] = ["127.0.0.1"], expired: Bool = false) throws -> Issued {
        let issued = Issued(certificate: folder.appendingPathComponent("\(name).pem"),
                            key: folder.appendingPathComponent("\(name).key"))
        let request = folder.appendingPathComponent("\(name).csr")
        let extensions = folder.appendingPathComponent("\(name).ext")
        let names = hosts.map { $0.first?.isNumber == true ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        try Data("subjectAltName=\(names)\nextendedKeyUsage=serverAuth\n".utf8).write(to: extensions)
        try Self.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                          "-keyout", issued.key.path, "-out", request.path, "-subj", "/CN=\(hosts.first ?? name)"])
        try Self.openssl(["x509", "-req", "-in", request.path, "-CA", certificate.path, "-CAkey", key.path,
                          "-CAcreateserial", "-out", issued.certificate.path, "-days", expired ? "-1" : "1",
                          "-extfile", extensions.path])
        return issued
    }

    /// The SHA-256 fingerprint of a PEM certificate, as `openssl x509 -fingerprint` prints it.
    public static func fingerprint(of certificate: URL) throws -> String {
        try openssl(["x509", "-in", certificate.path, "-noout", "-fingerprint", "-sha256"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `openssl ARGS`, returning its standard output; throws with its messages when it fails.
    @discardableResult
    public static func openssl(_ arguments: [String], stdin: String = "") throws -> String {
        try ToolRun.output(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, stdin: stdin)
    }
}
