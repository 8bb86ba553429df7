import Foundation
@testable import MIServer
import TestSupport

extension DataLayout {
    /// What lies under `incoming/` besides the servers' own (empty) receiving folders and their
    /// lock files: uploads being received, or left by a server that died; `<instance>/<name>`
    /// for what is inside a receiving folder.
    var uploadsBeingReceived: [String] {
        let names = Files.names(in: incoming)
        var found: [String] = []
        for name in names where !name.hasSuffix(DataDirectoryLock.lockSuffix) {
            if names.contains(name + DataDirectoryLock.lockSuffix) {
                found += Files.names(in: incoming.appendingPathComponent(name)).map { "\(name)/\($0)" }
            } else {
                found.append(name)
            }
        }
        return found
    }
}

extension ServerFixture {
    /// The key file the fixture's server signs sessions with: `Server.SigningKeyFile`, or the
    /// data folder's own.
    var signingKeyFile: URL {
        configuration.server.signingKeyFile.map { URL(fileURLWithPath: $0) } ?? layout.signingKey
    }
}
