import Glibc

/// Local TCP endpoints that misbehave on purpose, or watch who calls.
enum TCPEndpoints {
    /// A localhost URL nothing listens on: a port the kernel just handed out and took back.
    static func closedPortURL() -> String {
        guard let socket = boundSocket() else { return "ldap://127.0.0.1:9" }
        defer { close(socket.descriptor) }
        return "ldap://127.0.0.1:\(socket.port)"
    }

    /// A listener that never accepts and whose queue is full, so a new connection attempt
    /// hangs in the TCP handshake: the case `LDAP_OPT_NETWORK_TIMEOUT` is for. Close the
    /// returned descriptors when done.
    static func saturatedListener() -> (url: String, descriptors: [Int32])? {
        guard let listener = boundSocket() else { return nil }
        var descriptors = [listener.descriptor]
        guard listen(listener.descriptor, 0) == 0 else {
            descriptors.forEach { close($0) }
            return nil
        }
        var address = loopback(port: listener.port)
        for _ in 0..<4 {  // fill the accept queue (backlog 0 holds one) and the SYN queue
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { break }
            descriptors.append(client)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        usleep(100_000)
        return ("ldap://127.0.0.1:\(listener.port)", descriptors)
    }

    /// A non-blocking listener on `port`, to notice clients that connect (see `hasCaller`).
    static func listener(port: UInt16) -> Int32? {
        guard let socket = boundSocket(port: port) else { return nil }
        guard listen(socket.descriptor, 8) == 0 else {
            close(socket.descriptor)
            return nil
        }
        return socket.descriptor
    }

    /// True when a client has connected to `listener` (the kernel completes the handshake
    /// without `accept`).
    static func hasCaller(_ listener: Int32) -> Bool {
        let connection = accept(listener, nil, nil)  // the listener is non-blocking
        guard connection >= 0 else { return false }
        close(connection)
        return true
    }

    private static func boundSocket(port: UInt16 = 0) -> (descriptor: Int32, port: UInt16)? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = loopback(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
