import Foundation
import MIKit

/// A clock tests move by hand; `Workflow` reads it through its `now` closure.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// 2026-03-02T09:00:00Z: whole seconds, so dates survive form.json's ISO 8601 unchanged.
    public static let start = Date(timeIntervalSince1970: 1_772_442_000)

    public init(_ start: Date = TestClock.start) { current = start }

    public var now: Date {
        get { lock.lock(); defer { lock.unlock() }; return current }
        set { lock.lock(); current = newValue; lock.unlock() }
    }

    public func advance(by seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }
}

/// A temporary folder with a valid Config.plist, its store (`Documents/`) and the sample
/// template in the template cache: everything a `Workflow` needs.
public final class StoreFixture: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let configuration: Configuration
    public let clock: TestClock

    public init(_ edits: [ConfigEdit] = [], clock: TestClock = TestClock()) throws {
        directory = try TemporaryDirectory(prefix: "mikit-store")
        let plist = try ConfigFixture.write(into: directory.url, edits)
        configuration = try ConfigurationLoader.load(from: plist)
        self.clock = clock
        try TemplateCache(store: store, keys: configuration.templateKeys)
            .install(Data(TemplateFixture.sampleJSON.utf8), source: "sample.json")
    }

    public var store: Store { Store(root: configuration.documents) }
    public var root: URL { configuration.documents }

    public func workflow(user: String = "ana", role: Actor.Role = .technician) -> Workflow {
        let clock = self.clock
        return Workflow(configuration: configuration, actor: Actor(name: user, role: role), now: { clock.now })
    }

    /// A form of the sample template, not yet stored.
    public func form(name: String, user: String = "ana", createdAt: Date) throws -> Form {
        Form(name: name, user: user, template: try TemplateFixture.sampleTemplate(), createdAt: createdAt)
    }

    /// Writes a media file of `bytes` bytes for attaching, outside the store.
    public func mediaSource(_ name: String, bytes: Int = 64) throws -> URL {
        let url = directory.path("incoming", name)
        try Files.write(Data((0..<bytes).map { UInt8($0 % 251) }), to: url)
        return url
    }
}
