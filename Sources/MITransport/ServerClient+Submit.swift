import CCurl
import Foundation
import MIKit

/// The body of one `PUT /api/v1/submissions/{id}`: the parts sent in it and the manifest sent
/// before it. Between attempts it learns each part's SHA-256 from the bytes libcurl read, so a
/// retry carries the whole manifest and the server can answer it before the body.
final class MultipartUpload {
    /// The parts in the body: the form, then the media files not sent resumably.
    let parts: [UploadPart]
    /// The manifest as first given (every part, the resumable ones with their upload).
    private let given: UploadManifest
    /// Parts read in full while sending, by name.
    private(set) var learned: [String: SentPart] = [:]
    /// Body bytes on the wire, over every attempt.
    private(set) var bytesSent: Int64 = 0

    init(parts: [UploadPart], manifest: UploadManifest) {
        self.parts = parts
        given = manifest
    }

    /// The manifest with what was learned since.
    var manifest: UploadManifest {
        var manifest = given
        for index in manifest.entries.indices where manifest.entries[index].sha256 == nil {
            manifest.entries[index].sha256 = learned[manifest.entries[index].name]?.digest.sha256
        }
        return manifest
    }

    func learn(from body: MultipartBody, bytesSent sent: Int64) {
        bytesSent += sent
        for (part, source) in zip(parts, body.sources) {
            if let digest = source.completedDigest() {
                learned[part.name] = SentPart(part: part, identity: source.reader.identity, digest: digest)
            }
        }
    }
}

extension ServerClient {
    /// What a submission's commit answered.
    struct Submitted {
        /// The stored receipt, checked to be for the form.
        var receipt: Receipt
        /// True for 201 (stored now), false for 200 (stored before).
        var created: Bool
        /// Body bytes that went on the wire.
        var bytesSent: Int64
    }

    /// `PUT /api/v1/submissions/{id}`: the form (first, part `form`) and the media files of
    /// `upload`, streamed from disk and hashed as they are read, with `manifest` (every part,
    /// including those already sent resumably) in the `MI-Manifest` header and
    /// `Expect: 100-continue`, so a server that already holds the form answers before the body.
    /// Retried on temporary failures: the form's id makes the upload idempotent.
    func submit(formID: String, upload: MultipartUpload, progress: TransferProgress?) throws -> Submitted {
        let parts = upload.parts
        let manifest = upload.manifest
        let throttle = progress.map(ProgressThrottle.init)
        defer { throttle?.finish() }
        guard let first = parts.first, first.isForm else {
            throw TransportError.invalidUpload(reason: "the first part must be the form (part \"\(UploadPart.formName)\", \(UploadPart.formFilename))")
        }
        var seen = Set<String>()
        for part in parts {
            guard !part.name.isEmpty, seen.insert(part.name).inserted, manifest.entry(named: part.name) != nil else {
                throw TransportError.invalidUpload(reason: "part name \"\(part.name)\" is empty, used twice or not in the manifest")
            }
        }
        let response = try exchange(Request(endpoint: .submission, url: try url(.submission, id: formID),
                                            method: .putMultipart(upload), authorized: true,
                                            retryScope: .transientFailures, progress: throttle))
        guard response.status == 201 || response.status == 200 else {
            throw failure(for: response, notFound: "the upload endpoint")
        }
        let receipt = try decode(Receipt.self, from: response, expected: "an MI receipt")
        guard receipt.id.description == formID.lowercased() else {
            throw TransportError.badResponse(expected: "the receipt of form \(formID)",
                                             detail: "it is the receipt of form \(receipt.id)")
        }
        return Submitted(receipt: receipt, created: response.status == 201, bytesSent: upload.bytesSent)
    }
}
