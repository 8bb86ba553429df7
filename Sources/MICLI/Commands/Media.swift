import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Attach: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Attach photos, video or audio to a question.",
            discussion: """
                Files are copied into the form (named Qid<question index>(<n>).<ext>, in a repeat instance \
                Qid<question index>_<instance numbers>(<n>).<ext>) and recorded once the copy is complete. QUESTION is \
                the question's id or number, or inside a repeat its path (pumps[2]/photo); a file for the instance one \
                past the last of an open repeat adds it. A photo, audio or video question takes only files of its kind, up to its maxFiles: they \
                are its answer. A note takes no file.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms) var form: String
        @Argument(help: ArgumentHelp("The question's id, number or path (pumps[2]/photo).", valueName: "question"), completion: Completions.questions) var question: String
        @Argument(help: ArgumentHelp("Files to attach.", valueName: "file"), completion: .file()) var files: [String]

        func run() throws {
            let context = try Context.technician(global)
            let attached = try context.run { try $0.attach(form, question: question, files: files.map { URL(fileURLWithPath: $0) }) }
            if global.json {
                struct Output: Encodable { var form: String; var attached: [MediaFile] }
                try Terminal.json(Output(form: form, attached: attached))
            } else {
                for (file, media) in zip(files, attached) {
                    Terminal.out("Attached \(file) as \(media.name) (\(media.kind.rawValue), \(Format.bytes(media.bytes))) to question \(DisplayText.escaped(media.questionID)).")
                }
            }
        }
    }

    struct MediaList: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "media", abstract: "A form's media files.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms) var form: String

        func run() throws {
            let context = try Context.anyone(global)
            let media = try context.run { workflow -> [MediaFile] in
                let location = try workflow.resolve(form)
                return workflow.media(of: try workflow.store.load(location), at: location)
            }
            if global.json {
                struct Output: Encodable { var form: String; var media: [MediaFile] }
                try Terminal.json(Output(form: form, media: media))
                return
            }
            guard !media.isEmpty else { Terminal.out("No media. Attach with `\(ShellWord.mi("attach", form)) QUESTION FILE…`."); return }
            var table = TableRenderer(["MEDIA", "QUESTION", "KIND", "SIZE"])
            for file in media { table.add([DisplayText.escaped(file.name), DisplayText.escaped(file.questionID), file.kind.rawValue, Format.bytes(file.bytes)]) }
            Terminal.out(table)
        }
    }

    struct Detach: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a media file from a form.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms) var form: String
        @Argument(help: ArgumentHelp("The media file's name, e.g. Qid1(3).mp4.", valueName: "media")) var media: String

        func run() throws {
            let context = try Context.technician(global)
            let saved = try context.run { try $0.detach(form, media: media) }
            if global.json { try Terminal.json(FormJSON(saved)) } else { Terminal.out("Removed \(DisplayText.escaped(media)) from \(saved.name).") }
        }
    }
}
