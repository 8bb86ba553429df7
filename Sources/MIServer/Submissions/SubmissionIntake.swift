import Foundation
import Hummingbird
import Logging
import MIKit

/// Where the media files a submission's manifest lists as resumable uploads come from.
protocol ResumableUploadSource: Sendable {
    /// The finished upload `uploadID`, moved to `destination`; refuses (`UploadError`) an
    /// upload that is unknown, another user's, for another form or name, or unfinished.
    func take(_ uploadID: String, owner: String, formID: String, name: String,
              to destination: URL) async throws -> (size: Int64, sha256: String)
}

/// Taking an upload in: the one service every way in uses — `PUT` with its manifest up front,
/// `POST` multipart, resumable (tus) parts named by the manifest. It receives the multipart
/// body into a folder of its own, adds the manifest's resumable uploads, applies the
/// acceptance rules (`SubmissionAcceptance`: the id, the form part, user, template, logic,
/// simulated answers, consent, media), computes the scores, and records the form under its id
/// in one transaction (once per user, same or other content already stored). Refusals are
/// `SubmissionRefusal` (and `UploadError` for the bytes themselves); nothing is stored then.
///
/// An upload of a form id the server holds: the same content as the current version is
/// answered with its receipt; a form the office sent back (an open send-back of the current
/// version) whose form.json says it supersedes that version is stored as the next version
/// beside it; anything else is 409 naming the current version.
struct SubmissionIntake: Sendable {
    let layout: DataLayout
    let repository: any SubmissionRepository
    /// The open send-backs, which let a corrected form in as the next version.
    let reviews: any ReviewStore
    /// `Server.MaxUploadBytes`: the whole upload's limit.
    let maxUploadBytes: Int64
    let resumable: (any ResumableUploadSource)?
    let acceptance: SubmissionAcceptance
    let now: @Sendable () -> Date

    /// What became of an upload that was taken.
    enum Outcome: Sendable, Equatable {
        /// Stored now.
        case stored(Receipt)
        /// The server already held this form with the same content: nothing changed.
        case alreadyStored(Receipt)
    }

    /// The form id of a `PUT`'s path, canonical (lowercase): 400 when it is no UUID.
    static func formID(_ text: String) throws -> FormID {
        guard let id = FormID(text) else {
            throw SubmissionRefusal(.malformed, "\(SafeName.printable(text)) is not a form id (a UUID) — use `mi upload`")
        }
        return id
    }

    /// The manifest header's value read: 400 saying what is wrong with it.
    static func manifest(_ headerValue: String) throws -> UploadManifest {
        do {
            return try UploadManifest(headerValue: headerValue)
        } catch {
            throw SubmissionRefusal(.malformed, "\(error.localizedDescription) — use `mi upload`")
        }
    }

    /// 413 for an upload that says (`Content-Length`) it is larger than the limit.
    func checkLength(_ declared: Int64?) throws {
        if let declared, declared > maxUploadBytes { throw tooLarge(declared) }
    }

    /// The answer to an upload of form `id` with `manifest` before any body byte is read (so
    /// with `Expect: 100-continue` the body is never sent): the stored receipt when the server
    /// holds the form with the manifest's content, 409 when it holds other content; nil when
    /// the body must be received.
    func answerBeforeBody(id: FormID, manifest: UploadManifest, logger: Logger) async throws -> Receipt? {
        guard let stored = try await repository.receipt(id: id) else { return nil }
        switch manifest.compare(with: stored) {
        case .same, .sameShape:
            logger.info("submission already stored, answered before the body", metadata: [
                "id": .string(id.description), "bodyBytes": .stringConvertible(0),
            ])
            return stored
        case .different:
            // A form sent back may come again corrected: only its form.json says which version
            // it supersedes, so the body is needed.
            if try await reviews.openSendBack(of: id)?.version == stored.storedVersion { return nil }
            logger.info("submission refused before the body: the server holds other content", metadata: [
                "id": .string(id.description), "bodyBytes": .stringConvertible(0),
            ])
            throw SubmissionAcceptance.conflict(stored)
        }
    }

    /// The receipt `receipt` becomes when `form` is the corrected next version of a form the
    /// office sent back; nil when it is no such correction (a new form, or the content already
    /// stored); 409 naming the current version when it supersedes another version than the
    /// current one or the form was not sent back.
    private func nextVersion(of form: Form, receipt: Receipt) async throws -> Receipt? {
        guard let supersedes = form.supersedes, let stored = try await repository.receipt(id: form.id),
              !stored.hasSameContent(as: receipt) else { return nil }
        guard supersedes == stored.storedVersion,
              try await reviews.openSendBack(of: form.id)?.version == stored.storedVersion else {
            throw SubmissionAcceptance.conflict(stored, supersedes: supersedes)
        }
        // The same inspection: its technician's, of its template (a once-per-user claim and
        // every listing stay right).
        let (current, _) = try await SubmissionAccess.form(of: stored, layout: layout)
        guard form.user == current.user, form.template.id == current.template.id else {
            throw SubmissionRefusal(.conflict, "the server holds form \(stored.id) as version \(stored.storedVersion), \(current.user)'s \(current.template.id) — a corrected version must be the same technician's form of the same template; this one is \(form.user)'s \(form.template.id)")
        }
        var next = receipt
        next.version = stored.storedVersion + 1
        return next
    }

    /// Stores `receipt` (from the received `folder`) as the next version of its form, and
    /// records for the office that a newer version arrived (`edited`, which closes the
    /// send-back it answers).
    private func supersede(_ receipt: Receipt, form: Form, folder: URL, logger: Logger) async throws -> Outcome {
        let destination = layout.folder(of: receipt)
        let outcome = try await repository.supersede(receipt, form: form, placeFiles: {
            try DurableFile.makeFolder(destination.deletingLastPathComponent())
            try Self.place(folder, at: destination)
        }, removeFiles: {
            try? FileManager.default.removeItem(at: destination)
        })
        switch outcome {
        case .recorded(let stored):
            logger.info("submission stored as a new version", metadata: [
                "id": .stringConvertible(stored.id), "version": .stringConvertible(stored.storedVersion),
                "user": .string(stored.user), "parts": .stringConvertible(stored.parts.count),
            ])
            let event = ReviewEvent(reviewState: .edited, by: receipt.uploadedBy, at: receipt.receivedAt,
                                    note: "version \(stored.storedVersion) replaced version \(stored.storedVersion - 1)")
            do {
                try await reviews.record(event, submission: stored.id, version: stored.storedVersion)
            } catch {
                // The version is stored (the row says `edited`); the send-back it answers is no
                // longer listed, being of an older version.
                logger.error("version \(stored.storedVersion) of \(stored.id) is stored, but its review event was not: \(error)")
            }
            return .stored(stored)
        case .existing, .taken:
            return try await notRecorded(outcome, receipt: receipt, form: form, folder: folder)
        }
    }

    /// An upload the repository did not record (`.existing`: the id holds content, `.taken`:
    /// the user's once-per-user form is another): its received folder goes; the receipt of the
    /// same content is the answer, anything else is refused (409).
    private func notRecorded(_ outcome: RecordOutcome, receipt: Receipt, form: Form, folder: URL) async throws -> Outcome {
        try? await Blocking.run { try FileManager.default.removeItem(at: folder) }
        switch outcome {
        case .existing(let stored):
            guard stored.hasSameContent(as: receipt) else { throw SubmissionAcceptance.conflict(stored, supersedes: form.supersedes) }
            return .alreadyStored(stored)
        case .taken(let first):
            throw SubmissionAcceptance.oncePerUserRefused(form, first: first)
        case .recorded(let stored):
            return .stored(stored)
        }
    }

    /// Receives the multipart `body` into a folder of its own, adds the manifest's resumable
    /// uploads, checks everything against form.json (and `id`, the path's, and the manifest),
    /// then commits it under the form's id in one transaction. `uploadedBy`: the foreman.
    func take(_ body: RequestBody, contentType: String?, uploadedBy: String, id: FormID?, manifest: UploadManifest?,
              logger: Logger) async throws -> Outcome {
        let boundary = try MultipartReceiver.boundary(contentType: contentType)
        let folder = layout.receiving.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        try await Blocking.run { try DurableFile.makeFolder(folder) }
        do {
            let received = try await receive(body, boundary: boundary, into: folder)
            let (form, claimedScores) = try await Blocking.run { try SubmissionAcceptance.decodeForm(in: folder, parts: received) }
            var parts = received
            let formID = form.id.description
            if let id, id != form.id {
                throw SubmissionRefusal(.malformed, "the form part is form \(formID), but the upload is for \(id) — use `mi upload`")
            }
            try await acceptance.judge(form)
            if let manifest {
                parts = try await takeResumable(manifest, received: parts, owner: uploadedBy, formID: formID, folder: folder)
            }
            try SubmissionAcceptance.checkMedia(parts, against: form)
            // The server's own scores from the answers; form.json's snapshot is only compared.
            let scores = form.scoreValues
            if let claimedScores, claimedScores != scores {
                logger.info("the form's scores differ from the server's; the server's are stored", metadata: [
                    "id": .string(formID), "claimed": .string(Self.describe(claimedScores)),
                    "computed": .string(Self.describe(scores ?? [:])),
                ])
            }
            let receipt = Receipt(
                id: form.id, user: form.user, formName: form.name, uploadedBy: uploadedBy,
                receivedAt: Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down)),
                parts: parts.map { Receipt.Part(name: $0.name, filename: $0.filename, size: $0.size, sha256: $0.sha256) },
                scores: scores)
            if let next = try await nextVersion(of: form, receipt: receipt) {
                return try await supersede(next, form: form, folder: folder, logger: logger)
            }
            let destination = layout.submission(receipt.id)
            let outcome = try await repository.record(receipt, form: form, placeFiles: {
                try Self.place(folder, at: destination)
            }, removeFiles: {
                try? FileManager.default.removeItem(at: destination)
            })
            switch outcome {
            case .recorded(let stored):
                logger.info("submission stored", metadata: [
                    "id": .stringConvertible(stored.id), "user": .string(stored.user), "parts": .stringConvertible(stored.parts.count),
                    "bytes": .stringConvertible(stored.parts.reduce(0) { $0 + $1.size }),
                ])
                return .stored(stored)
            case .existing, .taken:
                return try await notRecorded(outcome, receipt: receipt, form: form, folder: folder)
            }
        } catch {
            try? await Blocking.run { try FileManager.default.removeItem(at: folder) }
            throw error
        }
    }

    /// The parts in the manifest's order: those received in the body, checked against their
    /// entries, and the resumable uploads the manifest names, moved into `folder`.
    private func takeResumable(_ manifest: UploadManifest, received: [ReceivedPart], owner: String, formID: String,
                               folder: URL) async throws -> [ReceivedPart] {
        func mismatch(_ problem: String) -> SubmissionRefusal {
            SubmissionRefusal(.malformed, "the upload does not match its \(UploadManifest.headerName) header: \(problem) — use `mi upload`")
        }
        for part in received {
            guard let entry = manifest.entry(named: part.name) else { throw mismatch("part \"\(SafeName.printable(part.name))\" is not listed") }
            guard entry.upload == nil else { throw mismatch("\"\(SafeName.printable(part.name))\" is both in the body and a resumable upload") }
            guard entry.size == part.size, entry.sha256 == nil || entry.sha256 == part.sha256 else {
                throw mismatch("\"\(SafeName.printable(part.name))\" arrived with another size or SHA-256 than listed")
            }
        }
        var parts: [ReceivedPart] = []
        for entry in manifest.entries {
            if let part = received.first(where: { $0.name == entry.name }) {
                parts.append(part)
                continue
            }
            guard let upload = entry.upload else { throw mismatch("\"\(SafeName.printable(entry.name))\" is listed but not in the body") }
            if let reason = SafeName.problem(entry.name), entry.name != UploadPart.formName {
                throw SubmissionRefusal(.malformed, "media \"\(SafeName.printable(entry.name))\" cannot be stored: \(reason) — rename the media file")
            }
            guard let resumable else {
                throw SubmissionRefusal(.malformed, "this server takes no resumable uploads — use `mi upload` with a smaller Server.ResumableThresholdBytes")
            }
            let (size, sha256) = try await resumable.take(upload, owner: owner, formID: formID, name: entry.name,
                                                          to: folder.appendingPathComponent(entry.name))
            guard size == entry.size, entry.sha256 == nil || entry.sha256 == sha256 else {
                throw mismatch("the resumable upload of \"\(SafeName.printable(entry.name))\" has another size or SHA-256 than listed")
            }
            parts.append(ReceivedPart(name: entry.name, filename: entry.name, fileName: entry.name, size: size, sha256: sha256))
        }
        if !parts.isEmpty { try await Blocking.run { try DurableFile.syncFolder(folder) } }
        return parts
    }

    private func tooLarge(_ length: Int64?) -> SubmissionRefusal {
        let size = length.map { "the upload (\($0) bytes)" } ?? "the upload"
        return SubmissionRefusal(.tooLarge, "\(size) is larger than the server's limit of \(maxUploadBytes) bytes — upload fewer or smaller media files, or ask the administrator to raise Server.MaxUploadBytes")
    }

    /// Streams the body through the multipart parser into `folder`, counting bytes as they
    /// arrive; stops with 413 the moment the count passes the limit.
    private func receive(_ body: RequestBody, boundary: String, into folder: URL) async throws -> [ReceivedPart] {
        let receiver = MultipartReceiver(boundary: boundary, folder: folder)
        var total: Int64 = 0
        var batch = BodyBatch(minimumBytes: BodyBatch.uploadBytes)
        for try await buffer in body {
            total += Int64(buffer.readableBytes)
            if total > maxUploadBytes { throw tooLarge(nil) }
            if let full = batch.add(buffer) {
                try await Blocking.run { try receiver.consume(full) }
            }
        }
        let rest = batch.take()
        return try await Blocking.run {
            try receiver.consume(rest)
            return try receiver.finish()
        }
    }

    /// `key=value, …` in key order, for the log.
    private static func describe(_ scores: [String: ScoreValue]) -> String {
        scores.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.display)" }.joined(separator: ", ")
    }

    /// Moves the received folder to its submission folder in one rename. Runs inside the
    /// repository's transaction after the id was found free, so a folder already there has no
    /// committed row: a leftover of a failed commit, removed first.
    private static func place(_ folder: URL, at destination: URL) throws {
        do {
            try DurableFile.moveNoReplace(folder, to: destination)
        } catch StoreError.exists {
            try FileManager.default.removeItem(at: destination)
            try DurableFile.moveNoReplace(folder, to: destination)
        }
    }
}
