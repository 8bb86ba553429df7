import Foundation
import MIKit

extension ServerClient {
    /// What uploading one form did.
    public struct FormUploadResult {
        /// The stored receipt (for the form; not yet proved against the files).
        public var receipt: Receipt
        /// True when stored now, false when the server already held it.
        public var created: Bool
        /// Every part with the identity and digest to prove the receipt against.
        public var sent: [SentPart]
        /// Body bytes that went on the wire.
        public var bytesSent: Int64
        /// Bytes of resumable uploads the server already held when this run began.
        public var bytesResumed: Int64
    }

    /// Uploads one form: media files larger than `Server.ResumableThresholdBytes` through
    /// resumable uploads (continued from the server's offset when `journals` remembers one),
    /// then the form and the other media in one `PUT` with the manifest up front.
    ///
    /// Every part's digest comes from the bytes read while sending it. The journal is written
    /// before the first byte and kept up to date, so a killed run costs little: a later run
    /// continues resumable uploads from the server's offset, and sends a whole manifest (from the
    /// journal, or one local read of what it lacks) so a server that stored the form answers
    /// before the body. A part the server never asked for comes from the journal when its file
    /// is unchanged, else from one local read.
    public func uploadForm(formID: FormID, parts: [UploadPart], journals: UploadJournalStore?,
                           progress: TransferProgress?) throws -> FormUploadResult {
        let id = formID.description
        let earlier = journals?.load(formID, server: serverAddress)
        var journal = earlier ?? UploadJournal(server: serverAddress)
        func save() throws { try journals?.save(journal, for: formID) }
        // The journal exists from before the first byte is sent: a later run knows this form
        // may already be on the server.
        if earlier == nil { try save() }

        // An earlier run was cut off, perhaps after the server stored the form: asked first, so
        // large media files are not sent again; the PUT below is then answered before its body.
        let threshold = server.resumableThresholdBytes
        let sizes = try parts.map(Self.size)
        let resumable = zip(parts, sizes).contains { !$0.isForm && $1 > threshold }
        var held = false
        if earlier != nil, resumable { held = try receipt(id: formID) != nil }

        var sent: [String: SentPart] = [:]
        var manifest: [UploadManifest.Entry] = []
        var bodyParts: [UploadPart] = []
        var bytesSent: Int64 = 0
        var bytesResumed: Int64 = 0
        let total = sizes.reduce(0, +)
        var done: Int64 = 0
        // Bytes of the parts sent resumably: the body that follows is counted after them, so
        // the progress ends at the whole upload's size, not the last request's.
        var resumableBytes: Int64 = 0
        for (part, size) in zip(parts, sizes) {
            if !part.isForm, size > threshold, !held {
                resumableBytes += size
                let outcome = try sendResumably(part, formID: id, journal: &journal,
                                                save: { try journals?.save($0, for: formID) },
                                                progress: progress, before: done, total: total)
                sent[part.name] = outcome.sent
                bytesSent += outcome.bytesSent
                bytesResumed += outcome.bytesResumed
                manifest.append(UploadManifest.Entry(name: part.name, size: outcome.sent.digest.size,
                                                     sha256: outcome.sent.digest.sha256,
                                                     upload: outcome.upload.split(separator: "/").last.map(String.init)))
            } else if let known = journal.sentPart(part) {
                manifest.append(UploadManifest.Entry(name: part.name, size: size, sha256: known.digest.sha256))
                bodyParts.append(part)
            } else if earlier != nil {
                // An earlier run was cut off, perhaps after the server stored the form: one
                // local read makes the manifest whole, so the server can answer before the body.
                let hashed = try SentPart.hashing(part)
                journal.parts[part.name] = UploadJournal.Entry(identity: hashed.identity, sha256: hashed.digest.sha256)
                manifest.append(UploadManifest.Entry(name: part.name, size: hashed.digest.size, sha256: hashed.digest.sha256))
                bodyParts.append(part)
            } else {
                manifest.append(UploadManifest.Entry(name: part.name, size: size))
                bodyParts.append(part)
            }
            done += size
        }

        let upload = MultipartUpload(parts: bodyParts, manifest: UploadManifest(entries: manifest))
        defer {
            // What the body taught (a part read in full) outlives a lost answer.
            for (name, part) in upload.learned {
                journal.parts[name] = UploadJournal.Entry(identity: part.identity, sha256: part.digest.sha256)
            }
            if !upload.learned.isEmpty { try? save() }
        }
        let submitted = try submit(formID: id, upload: upload,
                                   progress: progress.map { OffsetProgress($0, after: resumableBytes) })
        bytesSent += submitted.bytesSent
        var proved: [SentPart] = []
        for part in parts {
            if let known = sent[part.name] ?? upload.learned[part.name] ?? journal.sentPart(part) {
                proved.append(known)
            } else {
                proved.append(try SentPart.hashing(part))
            }
        }
        return FormUploadResult(receipt: submitted.receipt, created: submitted.created, sent: proved,
                                bytesSent: bytesSent, bytesResumed: bytesResumed)
    }

    /// One media file through a resumable upload: continued when the journal names one the
    /// server still has for the unchanged file, else created (and journaled before any byte is
    /// sent). Each PATCH streams the next chunk from the file, its SHA-256 taken into the whole
    /// file's as libcurl reads it, its CRC-32C computed while the chunk before it was sent. A cut
    /// transfer, a refused chunk (460) or another offset on the server takes it up again from the
    /// server's offset, as often as `retry` allows.
    private func sendResumably(_ part: UploadPart, formID: String, journal: inout UploadJournal,
                               save: (UploadJournal) throws -> Void, progress: TransferProgress?, before: Int64,
                               total: Int64) throws -> (sent: SentPart, upload: String, bytesSent: Int64, bytesResumed: Int64) {
        var bytesSent: Int64 = 0
        var bytesResumed: Int64?
        var attempt = 0
        var chunk = Self.firstChunkSize
        while true {
            attempt += 1
            let reader: HashingFileReader
            do {
                reader = try HashingFileReader(name: part.name, url: part.file)
            } catch {
                throw TransportError.unreadableFile(path: part.file.path, detail: "\(error.localizedDescription)")
            }
            var path: String?
            var offset: Int64 = 0
            if let entry = journal.parts[part.name], entry.identity == reader.identity, let known = entry.upload,
               let held = try resumableOffset(known), held <= reader.size {
                path = known
                offset = held
            }
            if path == nil {
                let created = try createResumableUpload(formID: formID, name: part.name, length: reader.size)
                journal.parts[part.name] = UploadJournal.Entry(identity: reader.identity, upload: created,
                                                               uploadCreatedAt: Date())
                try save(journal)
                path = created
            }
            guard let path else { continue }
            if bytesResumed == nil { bytesResumed = offset }
            do {
                try reader.skip(offset)
            } catch {
                throw TransportError.unreadableFile(path: part.file.path, detail: "\(error.localizedDescription)")
            }
            progress?.update(sent: before + offset, total: total)

            let size = reader.size
            var ahead = offset < size ? ChecksumAhead(file: part.file, offset: offset, length: min(chunk, size - offset)) : nil
            var interrupted: (any Error)?
            while let current = ahead {
                let next = current.offset + current.length
                ahead = next < size ? ChecksumAhead(file: part.file, offset: next, length: min(chunk, size - next)) : nil
                let started = ContinuousClock.now
                let outcome: PatchOutcome
                do {
                    let checksum = try current.value()
                    let body = PatchBody(reader: reader, length: current.length)
                    let (answer, wire) = try patchResumable(path, offset: current.offset, body: body, checksum: checksum)
                    bytesSent += wire
                    outcome = answer
                } catch let error as TransportError where error.failureClass == .unreachable {
                    interrupted = error
                    break
                }
                guard outcome == .accepted(next) else {
                    // The reader has taken in bytes the server did not keep: start again from its offset.
                    if outcome == .gone { journal.parts[part.name] = nil }
                    interrupted = TransportError.badResponse(expected: "the server to continue the upload of \(part.name)",
                                                             detail: "\(outcome) at offset \(current.offset)")
                    break
                }
                let seconds = max((ContinuousClock.now - started) / .seconds(1), 0.001)
                let fitting = Int64(Double(current.length) / seconds * Self.chunkSeconds) & ~((1 << 20) - 1)
                chunk = min(max(fitting, Self.minimumChunkSize), Self.maximumChunkSize)
                progress?.update(sent: before + next, total: total)
            }
            if let interrupted {
                guard attempt < retry.attempts else { throw interrupted }
                // A PATCH cut short may still be ending on the server: wait, then ask for its offset.
                let delay = retry.delay(afterAttempt: attempt)
                if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                continue
            }
            let digest = try reader.finish()
            let sent = SentPart(part: part, identity: reader.identity, digest: digest)
            journal.parts[part.name] = UploadJournal.Entry(identity: reader.identity, sha256: digest.sha256, upload: path,
                                                           uploadCreatedAt: journal.parts[part.name]?.uploadCreatedAt)
            try save(journal)
            return (sent, path, bytesSent, bytesResumed ?? 0)
        }
    }

    private static func size(of part: UploadPart) throws -> Int64 {
        guard let identity = FileIdentity(part.file), identity.isRegularFile else {
            throw TransportError.unreadableFile(path: part.file.path, detail: "cannot read it as a regular file")
        }
        return identity.size
    }
}

extension ServerClient {
    /// Uploads the parts of form `formID` (the form first) with nothing remembered between runs:
    /// `uploadForm` without a journal, for callers that keep no state.
    public func upload(formID: FormID, parts: [UploadPart],
                       progress: TransferProgress?) throws -> (receipt: Receipt, created: Bool) {
        let result = try uploadForm(formID: formID, parts: parts, journals: nil, progress: progress)
        return (result.receipt, result.created)
    }
}

/// The progress of the last request of an upload counted after the `after` bytes sent before
/// it, so the bar goes on from where the resumable parts left it and ends at the whole size.
final class OffsetProgress: TransferProgress {
    private let sink: TransferProgress
    private let after: Int64

    init(_ sink: TransferProgress, after: Int64) {
        self.sink = sink
        self.after = after
    }

    func update(sent: Int64, total: Int64) { sink.update(sent: after + sent, total: after + total) }
    func finish() { sink.finish() }
}
