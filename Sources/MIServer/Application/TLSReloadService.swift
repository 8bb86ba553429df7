import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the HTTPS certificate and key on each SIGHUP, the usual signal of a certificate
/// renewal hook (certbot's `--deploy-hook "systemctl reload mi-server"`), until shutdown.
struct TLSReloadService: Service {
    let certificates: TLSCertificates
    /// Made before the server starts, so a SIGHUP that comes early is not the default "terminate".
    let signals: UnixSignalsSequence
    let logger: Logger

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            certificates.reload(logger: logger)
        }
    }
}
