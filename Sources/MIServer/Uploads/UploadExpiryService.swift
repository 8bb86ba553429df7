import Foundation
import ServiceLifecycle

/// Removes expired resumable uploads every `interval` while the server runs (start-up removes
/// them once before the server listens).
struct UploadExpiryService: Service {
    static let defaultInterval: Duration = .seconds(600)

    let uploads: ResumableUploads
    var interval: Duration = Self.defaultInterval

    func run() async throws {
        while true {
            do {
                try await cancelWhenGracefulShutdown { [interval] in try await Task.sleep(for: interval) }
            } catch {
                return
            }
            await uploads.removeExpired()
        }
    }
}
