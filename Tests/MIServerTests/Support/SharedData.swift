import Foundation
@testable import MIServer
import TestSupport

extension DataLayout {
    /// Uploads being received under `incoming/` (`Files.uploadsBeingReceived`).
    var uploadsBeingReceived: [String] { Files.uploadsBeingReceived(in: incoming) }
}

extension ServerFixture {
    /// The key file the fixture's server signs sessions with: `Server.SigningKeyFile`, or the
    /// data folder's own.
    var signingKeyFile: URL {
        configuration.server.signingKeyFile.map { URL(fileURLWithPath: $0) } ?? layout.signingKey
    }
}
