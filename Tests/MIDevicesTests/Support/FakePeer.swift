import Foundation
import MIDevices
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension GPSFake {
    /// Where the fake gpsd listens.
    var address: GPSDAddress { GPSDAddress(host: "127.0.0.1", port: port) }
}

/// A one-connection TCP peer on a loopback port that answers gpsd's watch request with given
/// bytes — what a wrong or broken peer sends — then keeps the connection open until `hold`
/// seconds pass, or closes it at once when `hold` is 0.
final class FakePeer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32

    init(replies: [Data], hold: TimeInterval) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw GPSFake.Failure("socket: \(errno)") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listener = listener
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, listen(listener, 1) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else { close(listener); throw GPSFake.Failure("bind: \(errno)") }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 512)
            _ = recv(connection, &request, request.count, 0)
            for reply in replies {
                reply.withUnsafeBytes { _ = send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                usleep(20_000)
            }
            if hold > 0 { usleep(useconds_t(hold * 1_000_000)) }
            close(connection)
        }
    }

    var address: GPSDAddress { GPSDAddress(host: "127.0.0.1", port: port) }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))   // wakes the accept of a peer never connected to
        close(listener)
    }
}
