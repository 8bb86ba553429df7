import Synchronization

/// The slapd of one test class: started once in `class func setUp()`, stopped in
/// `class func tearDown()`. A failed start fails every test that asks for the server.
final class SlapdFixture: Sendable {
    private let tls: Bool
    private let state = Mutex<Result<SlapdServer, any Error>?>(nil)

    init(tls: Bool = false) {
        self.tls = tls
    }

    func start() {
        let tls = tls
        state.withLock { $0 = Result { try SlapdServer.start(tls: tls) } }
    }

    func stop() {
        state.withLock { state in
            if case .success(let server) = state {
                server.stop()
            }
            state = nil
        }
    }

    func server() throws -> SlapdServer {
        try state.withLock { state throws -> SlapdServer in
            guard let state else {
                throw SlapdServer.StartError(description: "slapd was not started (class setUp did not run)")
            }
            return try state.get()
        }
    }
}
