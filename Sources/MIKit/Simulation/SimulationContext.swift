import Foundation

/// When and where a simulated form is answered: dates are drawn around `temporal.now` in its
/// zone, locations near `near` (`mi simulate --near`; without it, near a place drawn from the
/// seed).
public struct SimulationContext: Sendable {
    public var temporal: TemporalContext
    public var near: Geopoint?

    public init(temporal: TemporalContext, near: Geopoint? = nil) {
        self.temporal = temporal
        self.near = near
    }
}
