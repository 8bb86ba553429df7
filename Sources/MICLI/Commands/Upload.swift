import ArgumentParser
import Foundation
import MIKit
import MITransport

extension MI {
    struct Upload: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload completed forms to mi-server (foremen).",
            discussion: """
                Each form is sent with all its media; the local copy is deleted only when the server's \
                receipt lists every part with the same size and SHA-256 as on disk. A failed, partial or \
                mismatching upload keeps everything. --all goes on past a failing form and ends with a \
                summary; when any form failed, the exit status is the class of the first failure \
                (75 when the server could not be reached: try again later). --all leaves out the forms \
                `mi simulate` made (mi-server refuses them) and says how many; `mi purge --simulated` \
                deletes them.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("Completed forms (user/name, name or id prefix).", valueName: "form"), completion: Completions.completedForms) var forms: [String] = []
        @Flag(help: "Every completed form of every technician.") var all = false

        func validate() throws {
            if all == !forms.isEmpty { throw ValidationError("name the forms to upload, or pass --all") }
        }

        /// `--json`: one object, every form's outcome and the counts.
        struct Output: Encodable {
            var forms: [Outcome]
            /// Counts end in `Count` (each form's `uploaded` is a boolean).
            var uploadedCount: Int
            var failedCount: Int
            /// Simulated forms --all left out.
            var skippedSimulatedCount: Int
        }

        struct Outcome: Encodable {
            var form: String
            var id: String?
            var uploaded: Bool
            var created: Bool?
            var error: ErrorJSON?
            var receipt: Receipt?
            /// Body bytes this run put on the wire for the form.
            var bytesSent: Int64?
            /// Bytes of resumable uploads the server already held when the run began.
            var bytesResumed: Int64?
            /// Seconds the form's upload took.
            var seconds: Double?
        }

        func run() throws {
            let context = try Context.foreman(global)
            let client = try ServerAccess.client(context)
            let (targets, skipped): ([FormLocation], Int) = try context.run { workflow in
                guard all else { return (try forms.map { try workflow.resolve($0, areas: [.completed]) }, 0) }
                let completed = try workflow.store.list(.completed).forms.map(\.location)
                let simulated = Set(workflow.simulated(among: completed))
                return (completed.filter { !simulated.contains($0) }, simulated.count)
            }
            if skipped > 0, !global.json {
                Terminal.out("Skipped \(Format.plural(skipped, "simulated form")) (made by mi simulate; mi-server refuses them) — delete them with `mi purge --simulated`.")
            }
            var outcomes: [Outcome] = []
            var failure: FailureClass?
            for location in targets {
                let label = "\(location.user)/\(location.name)"
                let started = ContinuousClock.now
                do {
                    let result = try upload(location, context: context, client: client)
                    let receipt = result.receipt
                    let seconds = (ContinuousClock.now - started) / .seconds(1)
                    outcomes.append(Outcome(form: label, id: receipt.id.description, uploaded: true, created: result.created,
                                            receipt: receipt, bytesSent: result.bytesSent, bytesResumed: result.bytesResumed,
                                            seconds: (seconds * 1000).rounded() / 1000))
                    if !global.json {
                        let resumed = result.bytesResumed > 0 ? ", \(Format.bytes(result.bytesResumed)) already on the server" : ""
                        Terminal.out("Uploaded \(label) (\(Format.plural(receipt.parts.count, "part")), receipt verified\(result.created ? "" : ", already on the server")\(resumed)); removed the local copy.")
                    }
                } catch {
                    let described = FailureReport.describe(error)
                    failure = failure ?? described.failureClass
                    outcomes.append(Outcome(form: label, id: (try? context.store.readSummary(location))?.id.description, uploaded: false,
                                            error: ErrorJSON(described)))
                    Terminal.note("\(label) was not uploaded and is kept: \(described.message)")
                    if !all, targets.count == 1 { break }
                }
            }
            let failed = outcomes.filter { !$0.uploaded }.count
            if global.json {
                try Terminal.json(Output(forms: outcomes, uploadedCount: outcomes.count - failed, failedCount: failed, skippedSimulatedCount: skipped))
            } else if targets.isEmpty {
                Terminal.out(skipped > 0 ? "No other completed forms to upload." : "No completed forms to upload.")
            } else if targets.count > 1 {
                Terminal.out("\(Format.plural(outcomes.count - failed, "form")) uploaded, \(failed) failed.")
            }
            // The exit status is the class of the first failure (75: try again later).
            if let failure { throw ExitCode(failure.exitCode) }
        }

        /// One form: prepare under the lock, send without it (large media resumably, every part
        /// hashed as it is read), verify the receipt, then delete under the lock again — only if
        /// the form is still exactly what was sent.
        func upload(_ location: FormLocation, context: Context, client: ServerClient) throws -> ServerClient.FormUploadResult {
            let (form, parts) = try context.locked { try $0.prepareUpload(location) }
            let bar = ProgressBar(label: "\(location.user)/\(location.name)", enabled: !global.json)
            let journals = UploadJournalStore(sessions: Identity.sessions)
            let result = try client.uploadForm(formID: form.id, parts: parts, journals: journals, progress: bar)
            bar?.finish()
            try context.locked { workflow in
                try workflow.completeUpload(location, formID: form.id, sent: result.sent, receipt: result.receipt)
                // The server now holds it: `mi new` refuses a second one even offline.
                try workflow.rememberUploaded(form)
            }
            journals.remove(form.id)
            return result
        }
    }
}
