import NIOPosix

/// Work that blocks a thread (fsync, renames, file writes, libldap) runs on NIO's thread
/// pool, never on the event loops or Swift's cooperative threads.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
