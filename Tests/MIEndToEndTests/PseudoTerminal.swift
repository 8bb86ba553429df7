import Foundation
import XCTest

/// A pseudo-terminal to run `mi` as a person at a terminal does: the program's stdin, stdout
/// and stderr are the terminal's slave side; the test types into the master side and reads
/// what the program shows.
final class PseudoTerminal: @unchecked Sendable {
    private let master: Int32
    private var slave: Int32
    private let lock = NSLock()
    private var received = Data()
    private let finished = DispatchSemaphore(value: 0)

    init(columns: UInt16 = 120, rows: UInt16 = 40) throws {
        // posix_openpt, grantpt and unlockpt are not in Swift's Glibc module: the same through
        // /dev/ptmx and its ioctls (TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned)).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw TestDirectoryError("cannot open a pseudo-terminal: errno \(errno)")
        }
        slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw TestDirectoryError("cannot open /dev/pts/\(number): errno \(errno)") }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        let thread = Thread { [self] in readUntilClosed() }
        thread.start()
    }

    deinit { close(master) }

    /// Starts `process` on the terminal; the test's own copy of the slave side is closed, so
    /// reading ends when the program exits.
    func run(_ process: Process) throws {
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        close(slave)
        slave = -1
    }

    /// Types `text` (escape sequences included) as one burst of keys.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            written += count
        }
    }

    /// Everything the program showed so far.
    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits until the output holds `text` `occurrence` times; false after `timeout` seconds.
    @discardableResult
    func waitFor(_ text: String, occurrence: Int = 1, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.components(separatedBy: text).count - 1 >= occurrence {
                // libedit switches the terminal to raw mode right after showing the prompt.
                Thread.sleep(forTimeInterval: 0.1)
                return true
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Waits for the program's side to close (it exited).
    func waitForEnd(timeout: TimeInterval = 20) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            lock.lock()
            received.append(contentsOf: buffer[0..<count])
            lock.unlock()
        }
        finished.signal()
    }
}

extension Sandbox {
    /// Runs `mi ARGS` as `user` to its end on a pseudo-terminal `columns` wide (without `COLUMNS`
    /// and colour), as a person at a terminal of that width sees it: its exit status and the
    /// lines shown (stdout and stderr together).
    func runOnTerminal(_ arguments: [String], as user: String = "ana", columns: UInt16) throws -> (status: Int32, lines: [String]) {
        try ensureLoggedIn(user)
        let terminal = try PseudoTerminal(columns: columns)
        let process = Process()
        process.executableURL = Sandbox.binary
        process.arguments = arguments
        var environment = environment(for: user)
        environment["COLUMNS"] = nil
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.currentDirectoryURL = root
        try terminal.run(process)
        XCTAssertTrue(terminal.waitForEnd(timeout: 60), terminal.output)
        process.waitUntilExit()
        return (process.terminationStatus, terminal.output.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n"))
    }
}
