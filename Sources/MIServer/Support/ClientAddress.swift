import HTTPTypes
import Hummingbird
import MIKit

/// The address a request comes from, as the sign-in limits and the logs count it. Behind a
/// proxy every connection comes from the proxy; when the peer is one of `Server.TrustedProxies`,
/// the client is the right-most `X-Forwarded-For` address that is not a trusted proxy (entries
/// further left were written by the client itself and prove nothing).
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    static func of(_ request: Request, context: ServerContext, trusted: Set<String>) -> String {
        let peer = context.remoteAddress?.ipAddress.flatMap(IPAddressText.canonical) ?? "unknown"
        guard trusted.contains(peer) else { return peer }
        let chain = request.headers[values: forwardedFor]
            .flatMap { $0.split(separator: ",") }
            .map { IPAddressText.canonical(String($0)) }
        return resolve(peer: peer, chain: chain, trusted: trusted)
    }

    /// The decision alone: `chain` is `X-Forwarded-For` left to right, nil for an entry that is
    /// no address (which ends the walk: what lies left of it cannot be trusted).
    static func resolve(peer: String, chain: [String?], trusted: Set<String>) -> String {
        var client = peer
        for entry in chain.reversed() {
            guard let entry else { break }
            client = entry
            if !trusted.contains(entry) { break }
        }
        return client
    }
}
