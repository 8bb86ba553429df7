import Foundation

/// A throwaway nginx started by `scripts/nginx-test.sh` (Debian's `nginx-light`) on a free
/// loopback port, proxying round robin to mi-servers on 127.0.0.1 with the configuration the
/// README recommends. Its files (configuration, logs, pid) live in a temporary folder that
/// `stop()` — or releasing the value — removes.
public final class NginxServer: @unchecked Sendable {
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where nginx listens on 127.0.0.1.
    public let port: Int
    /// The mi-servers' ports, in the order given.
    public let upstreams: [Int]
    /// The folder holding nginx.conf, access.log and error.log; removed by `stop()`.
    public let directory: String
    private let lock = NSLock()
    private var stopped = false

    /// `<package>/scripts/nginx-test.sh`, found from this file's place in the package.
    public static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("scripts/nginx-test.sh")

    private init(port: Int, upstreams: [Int], directory: String) {
        self.port = port
        self.upstreams = upstreams
        self.directory = directory
    }

    /// Starts nginx in front of mi-servers listening on 127.0.0.1 at `upstreams`.
    public static func start(upstreams: [Int]) throws -> NginxServer {
        guard !upstreams.isEmpty else { throw StartError(description: "nginx needs at least one upstream port") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-test-" + UUID().uuidString).path
        let output = try run(["start", folder] + upstreams.map(String.init))
        let exports = ShellExports.parse(output)
        guard let port = exports["NGINX_TEST_PORT"].flatMap(Int.init), let directory = exports["NGINX_TEST_DIR"] else {
            _ = try? run(["stop", folder])
            throw StartError(description: "nginx-test.sh printed no NGINX_TEST_PORT or NGINX_TEST_DIR in:\n\(output)")
        }
        return NginxServer(port: port, upstreams: upstreams, directory: directory)
    }

    deinit { stop() }

    /// nginx's access log: one line per request, naming the upstream that answered it
    /// (`upstream=127.0.0.1:PORT`).
    public var accessLog: URL { URL(fileURLWithPath: directory).appendingPathComponent("access.log") }

    /// Stops nginx and deletes its folder; later calls do nothing.
    public func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? Self.run(["stop", directory])
    }

    private static func run(_ arguments: [String]) throws -> String {
        try ToolRun.output(URL(fileURLWithPath: "/bin/bash"), [script.path] + arguments)
    }
}
