import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Print: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a form as a PDF (and to a CUPS printer with --printer).",
            discussion: "Technicians print their own forms, foremen any form (FORM may be user/name).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The form.", valueName: "form"), completion: Completions.forms) var form: String

        @Option(help: ArgumentHelp(
            "Where to write the PDF; an existing file there is replaced. Without it, the PDF is <form name>.pdf in the current folder, which is never overwritten unless --force is given.",
            valueName: "file.pdf"), completion: .file(extensions: ["pdf"]))
        var output: String?

        @Flag(help: "Replace <form name>.pdf in the current folder when it already exists.")
        var force = false

        @Option(help: ArgumentHelp("Also send the PDF to this CUPS printer (`lp -d NAME`).", valueName: "name"))
        var printer: String?

        @Option(help: ArgumentHelp("a4 or letter (default: from the locale).", valueName: "paper"))
        var paper: String?

        func validate() throws {
            if let paper, !["a4", "letter"].contains(paper.lowercased()) {
                throw ValidationError("--paper must be a4 or letter, found \(paper)")
            }
        }

        func run() throws {
            let context = try Context.anyone(global)
            // Under the lock, so the form cannot move or change while it is drawn.
            let (form, url) = try context.run { workflow -> (Form, URL) in
                let location = try workflow.resolve(self.form)
                let form = try workflow.store.load(location)
                let url = try destination(for: location.name)
                let pictures = TemplateCache(store: context.store, keys: context.configuration.templateKeys).filesFolder(of: form.template.id)
                try Printing.writePDF(of: location.folder, to: url, paper: paper?.lowercased() ?? "auto", pictures: pictures)
                return (form, url)
            }
            if let printer { try Printing.send(url, to: printer) }
            if global.json {
                try Terminal.json(["form": form.name, "pdf": url.path, "printer": printer ?? ""])
            } else {
                Terminal.out("Wrote \(url.path)" + (printer.map { " and sent it to \($0)" } ?? "") + ".")
            }
        }

        /// `--output`, or `<form name>.pdf` in the current folder (a form's name is a safe file
        /// name), which is not replaced without `--force`.
        func destination(for formName: String) throws -> URL {
            if let output { return URL(fileURLWithPath: output) }
            let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(formName + ".pdf")
            try OutputFile.checkReplaceable(url, force: force)
            return url
        }
    }
}

/// The PDF through `mi-report` (installed next to `mi`), and CUPS through its command-line client.
enum Printing {
    static func writePDF(of formFolder: URL, to output: URL, paper: String, pictures: URL?) throws {
        try ReportWriter.writePDF(of: formFolder, to: output, paper: paper, pictures: pictures)
    }

    static func send(_ pdf: URL, to printer: String) throws {
        let candidates = ["/usr/bin/lp", "/usr/local/bin/lp", "/bin/lp"]
        guard let lp = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw PrintError.noCUPS(pdf: pdf.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lp)
        process.arguments = ["-d", printer, "--", pdf.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PrintError.printerRefused(printer: printer, reason: message.isEmpty ? "lp exited with \(process.terminationStatus)" : message, pdf: pdf.path)
        }
    }
}

/// Why a PDF was not written or not printed.
enum PrintError: ClassifiedError {
    case noCUPS(pdf: String)
    case printerRefused(printer: String, reason: String, pdf: String)

    var failureClass: FailureClass {
        switch self {
        case .noCUPS: return .configuration
        case .printerRefused: return .refused
        }
    }

    var code: String {
        switch self {
        case .noCUPS: return "no-cups"
        case .printerRefused: return "printer-refused"
        }
    }

    var errorDescription: String? {
        switch self {
        case .noCUPS(let pdf): return "cannot print: `lp` (CUPS) is not installed — install cups-client; the PDF is at \(pdf)"
        case .printerRefused(let printer, let reason, let pdf):
            return "printer \(printer) refused the job (\(reason)) — `lpstat -p` lists the printers; the PDF is at \(pdf)"
        }
    }
}
