import ArgumentParser
import Foundation
import MIKit
import MITransport

extension MI {
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring from the server the templates that changed, the forms the office sent back, and its notes.",
            discussion: """
                Templates are synced as `mi templates` does. A technician's forms the office sent back \
                (GET /api/v1/returned) are downloaded — form.json and every media file, each checked \
                against the SHA-256 of the stored receipt — and placed among your incomplete forms, each \
                in one step, with the questions the office flagged and its note: `mi fill` starts at the \
                first flagged question, `mi review` lists the flags, and `mi submit` waits until each is \
                answered (the answer changed, or `mi answer FORM PATH --reply TEXT`). A form whose id is \
                already here is left as it is (the message says so). A technician's `mi login` runs sync too.

                Everything is downloaded and checked before anything is changed: when the server cannot be \
                reached, sync says so and exits 75 with nothing changed. A returned form whose files do not \
                match its receipt, or that cannot be placed, is named with the reason and waits on the \
                server; the others are placed, and the exit status is that failure's class (65).
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = try Context.anyone(global)
            let result = try ReturnedSync.run(context)
            if global.json {
                try Terminal.json(result.output)
            } else {
                result.print()
            }
            if let first = result.failures.first { throw ExitCode(first.failureClass.exitCode) }
        }
    }
}

/// `mi sync`: templates, then the forms the office sent back, with their notes. `mi login`
/// runs it after logging in.
enum ReturnedSync {
    /// What one sync did.
    struct Result {
        var templates = TemplateSync.Result()
        var placed: [Placed] = []
        var alreadyHere: [AlreadyHere] = []
        var failures: [Failure] = []
        /// Something the user should know about the server (it cannot send forms back).
        var serverNote: String?

        struct Placed: Encodable {
            var id: String
            var name: String
            var supersedes: Int
            var by: String
            var at: Date
            var note: String?
            var flags: [ReviewFlag]
        }
        struct AlreadyHere: Encodable { var id: String; var name: String; var path: String }
        struct Failure: Encodable {
            var id: String?
            var code: String
            var message: String
            var failureClass: FailureClass
            enum CodingKeys: String, CodingKey { case id, code, message }
        }

        /// `--json`: the templates downloaded and removed, the forms placed and left as they were,
        /// the office's notes, and what failed.
        struct Output: Encodable {
            var templates: Templates
            var returned: [Placed]
            var alreadyHere: [AlreadyHere]
            var messages: [Message]
            var failures: [Failure]
            var serverNote: String?
            struct Templates: Encodable { var downloaded: [String]; var removed: [String]; var missingFiles: [TemplateSync.MissingFile] }
            struct Message: Encodable { var form: String; var by: String; var at: Date; var text: String }
        }

        var output: Output {
            Output(templates: .init(downloaded: templates.downloaded, removed: templates.removed, missingFiles: templates.missingFiles),
                   returned: placed, alreadyHere: alreadyHere,
                   messages: placed.compactMap { form in form.note.map { .init(form: form.name, by: form.by, at: form.at, text: $0) } },
                   failures: failures, serverNote: serverNote)
        }

        /// Whether there is anything to tell: a template, a form or a failure.
        var changedAnything: Bool {
            !(templates.downloaded.isEmpty && templates.removed.isEmpty && templates.missingFiles.isEmpty && placed.isEmpty
              && alreadyHere.isEmpty && failures.isEmpty)
        }

        /// Says what sync did: `lines` on stdout, the pictures that could not be cached and the
        /// forms that failed on stderr.
        func print() {
            for line in lines { Terminal.out(line) }
            for missing in templates.missingFiles { Terminal.error(missing.message) }
            for failure in failures { Terminal.error(failure.message) }
        }

        /// What sync says at the terminal, one line each.
        var lines: [String] {
            var lines = templates.downloaded.map { "Downloaded template \($0)." }
            lines += templates.removed.map { "Removed template \($0) (no longer on the server)." }
            if let serverNote { lines.append("Note: \(serverNote).") }
            for form in placed {
                let flags = form.flags.isEmpty ? "" : ", \(Format.plural(form.flags.count, "question")) flagged"
                lines.append("Sent back by \(form.by) \(Format.date(form.at)): \(form.name) (version \(form.supersedes)\(flags)) is in your incomplete forms"
                             + " — `\(ShellWord.mi("fill", form.name))` starts at the first flag.")
                if let note = form.note { lines.append("  Note: \(DisplayText.escaped(note))") }
                for flag in form.flags { lines.append("  \(DisplayText.escaped(flag.question)): \(DisplayText.escaped(flag.note))") }
            }
            for form in alreadyHere {
                lines.append("Form \(form.name) (\(form.id)) came back from the office, but a form with that id is already here (\(form.path)): it was left as it is.")
            }
            if lines.isEmpty, templates.missingFiles.isEmpty {
                lines.append("Everything is up to date: no template changed and no form was sent back.")
            }
            return lines
        }
    }

    /// One returned form with its files, downloaded and checked against its receipt: form.json
    /// in memory, each media file on disk in the store's staging folder.
    struct Download {
        var returned: SentBackForm
        var formFile: Data
        var media: [(name: String, file: URL)]
    }

    /// Lists templates and returned forms, downloads and checks every returned form's files,
    /// then (holding the store's lock) places the forms and installs the templates. A failure
    /// to reach the server is thrown before anything changed.
    static func run(_ context: Context) throws -> Result {
        let client = try ServerAccess.client(context)
        let listing = try client.templates()
        var result = Result()
        var downloads: [Download] = []
        // Media come down to disk, beside the forms (one rename places them), whatever their size.
        var staging: URL?
        defer { if let staging { try? FileManager.default.removeItem(at: staging) } }
        if context.actor.role == .technician {
            let sentBack: [SentBackForm]
            do {
                sentBack = try client.returned()
            } catch TransportError.notFound {
                // A server from before send-back: templates only.
                result.serverNote = "the server sends no forms back (it has no GET /api/v1/returned) — templates only"
                sentBack = []
            }
            for returned in sentBack {
                let id = returned.id
                if let here = try context.locked({ try $0.localForm(id: id, user: context.actor.name) }) {
                    result.alreadyHere.append(.init(id: returned.id.description, name: here.name, path: here.relativePath))
                    continue
                }
                do {
                    let folder = try staging ?? context.store.makeStagingFolder()
                    staging = folder
                    downloads.append(try download(returned, id: id, client: client, into: folder))
                } catch let error as ReceiptMismatch {
                    result.failures.append(.init(id: returned.id.description, code: error.code, message: error.errorDescription ?? error.code,
                                                 failureClass: error.failureClass))
                }
            }
        }
        let cache = TemplateCache(store: context.store, keys: context.configuration.templateKeys)
        try context.run { workflow in
            for download in downloads {
                do {
                    switch try workflow.receiveReturned(download.returned, formFile: download.formFile, media: download.media) {
                    case .placed(let location, let form):
                        result.placed.append(.init(id: download.returned.id.description, name: location.name, supersedes: download.returned.version,
                                                   by: download.returned.by, at: download.returned.at, note: download.returned.note,
                                                   flags: form.flags.map { ReviewFlag(question: $0.question, note: $0.note) }))
                    case .alreadyHere(let location):
                        result.alreadyHere.append(.init(id: download.returned.id.description, name: location.name, path: location.relativePath))
                    }
                } catch let error as ReturnedFormError {
                    result.failures.append(.init(id: error.id, code: error.code, message: error.errorDescription ?? error.code,
                                                 failureClass: error.failureClass))
                }
            }
            result.templates = try TemplateSync.apply(listing, client: client, cache: cache, refresh: false)
        }
        return result
    }

    /// The stored form.json and media of `returned`, each checked against the receipt's size and
    /// SHA-256; the media written into `folder` as they arrive.
    static func download(_ returned: SentBackForm, id: FormID, client: ServerClient, into folder: URL) throws -> Download {
        guard let receipt = try client.receipt(id: id) else {
            throw ReceiptMismatch(id: returned.id.description, reason: "the server has no receipt for it")
        }
        var formFile: Data?
        var media: [(name: String, file: URL)] = []
        do {
            for part in receipt.parts {
                let (size, digest): (Int64, String)
                if part.name == UploadPart.formName {
                    let data = try client.submissionForm(id: id)
                    (size, digest) = (Int64(data.count), FileDigest.sha256(of: data))
                    formFile = data
                } else {
                    let file = folder.appendingPathComponent(DurableFile.temporaryName())
                    do {
                        (size, digest) = try client.submissionMedia(id: id, name: part.name, to: file, limit: part.size)
                    } catch TransportError.responseTooLarge {
                        throw ReceiptMismatch(id: returned.id.description, reason: "\(part.filename) arrived longer than the receipt's \(part.size) bytes")
                    }
                    media.append((part.name, file))
                }
                guard size == part.size, digest == part.sha256.lowercased() else {
                    throw ReceiptMismatch(id: returned.id.description, reason: "\(part.filename) arrived as \(size) bytes with SHA-256 \(digest); the receipt says \(part.size) bytes, \(part.sha256)")
                }
            }
        } catch {
            for file in media { try? FileManager.default.removeItem(at: file.file) }
            throw error
        }
        guard let formFile else { throw ReceiptMismatch(id: returned.id.description, reason: "its receipt lists no form.json") }
        return Download(returned: returned, formFile: formFile, media: media)
    }

    /// A returned form's download that is not what its receipt says.
    struct ReceiptMismatch: ClassifiedError {
        var id: String
        var reason: String
        var failureClass: FailureClass { .badData }
        var code: String { "receipt-mismatch" }
        var errorDescription: String? { "the returned form \(id) was not placed: \(reason) — nothing of it was changed; `mi sync` tries again" }
    }
}
