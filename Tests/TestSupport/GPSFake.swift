import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd fed by Debian's `gpsfake` (package gpsd-clients) from an NMEA log, listening on a
/// free loopback port (`127.0.0.1:port`); MIDevices' tests and the end-to-end tests share it.
/// gpsfake and the gpsd it starts run in a process group of their own, which `stop()` ends (SIGTERM, then SIGKILL) — called by the test's teardown, so they stop even when
/// the test fails, and by `deinit` as a last resort; coreutils' `timeout` leads the group and ends
/// it after 5 minutes should the test process die first.
public final class GPSFake: @unchecked Sendable {
    public static let executable = "/usr/bin/gpsfake"

    public let port: UInt16
    public private(set) var processGroup: pid_t = 0
    private let folder: TemporaryDirectory

    /// The address as Config.plist's `Location.GPSD` writes it.
    public var hostPort: String { "127.0.0.1:\(port)" }

    /// Starts gpsfake replaying `log` in a loop (a sentence every 50 ms) and waits until gpsd
    /// accepts connections.
    public init(log: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw Failure("gpsfake is missing — run scripts/setup.sh (Debian's gpsd and gpsd-clients)")
        }
        folder = try TemporaryDirectory(prefix: "mi-gpsfake")
        port = try Self.freePort()
        let output = folder.path("gpsfake.log").path
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.url.path           // gpsfake's control socket, one per test
        environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        // Under coreutils' timeout, which ends the whole group after 5 minutes: should the test
        // process itself die before its teardown, gpsfake and gpsd do not outlive it for long.
        processGroup = try Self.spawn(["/usr/bin/timeout", "--kill-after=5", "300",
                                       Self.executable, "-q", "-c", "0.05", "-P", String(port), log.path],
                                      environment: environment, output: output)
        let deadline = Date().addingTimeInterval(15)
        while !Self.accepts(port) {
            if Date() > deadline || !isRunning {
                let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                stop()
                throw Failure("gpsfake did not listen on port \(port) within 15 s: \(said)")
            }
            usleep(50_000)
        }
    }

    /// Whether the group's leader (`timeout`, with gpsfake under it) is still running.
    public var isRunning: Bool {
        guard processGroup > 0 else { return false }
        var status: Int32 = 0
        return waitpid(processGroup, &status, WNOHANG) == 0
    }

    /// Whether any process of the group is left.
    public var groupIsGone: Bool { processGroup == 0 || (kill(-processGroup, 0) != 0 && errno == ESRCH) }

    /// Ends gpsfake and gpsd: SIGTERM to the group, up to 3 s, then SIGKILL; reaps gpsfake.
    public func stop() {
        guard processGroup > 0 else { return }
        let group = processGroup
        kill(-group, SIGTERM)
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline, !(kill(-group, 0) != 0 && errno == ESRCH) {
            var status: Int32 = 0
            _ = waitpid(group, &status, WNOHANG)
            usleep(20_000)
        }
        kill(-group, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(group, &status, 0)
        // gpsd, a grandchild, is reaped by init once gpsfake is gone; wait until it is.
        let end = Date().addingTimeInterval(3)
        while Date() < end, !(kill(-group, 0) != 0 && errno == ESRCH) { usleep(20_000) }
        processGroup = 0
    }

    deinit { stop() }

    // MARK: -

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// A port that nothing listens on now (`LoopbackPort.free`).
    public static func freePort() throws -> UInt16 {
        guard let port = LoopbackPort.free() else { throw Failure("no free loopback port: \(errno)") }
        return port
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    public static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Starts `arguments` (no shell) as the leader of a new process group, output to `output`,
    /// standard input from /dev/null; returns its pid (= the group's id).
    static func spawn(_ arguments: [String], environment: [String: String], output: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard status == 0 else { throw Failure("posix_spawn \(arguments[0]): \(String(cString: strerror(status)))") }
        return pid
    }
}

