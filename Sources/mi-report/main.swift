// mi-report FORM_FOLDER OUTPUT.pdf [a4|letter|auto [PICTURES_FOLDER]]
//
// Writes the PDF of the form in FORM_FOLDER; PICTURES_FOLDER holds the pictures its template's
// questions show. `mi print` runs it after resolving the form and
// checking who may print it; keeping cairo and pango in this executable spares every other
// `mi` command the cost of loading them.
import Foundation
import MIKit
import MIReport

let arguments = CommandLine.arguments
/// What `--help` prints; `make install` makes mi-report's manual page from it (scripts/help-to-man.sh).
let help = """
    OVERVIEW: Write the printable PDF of one form, as `mi print` does.

    Use `mi print FORM --output FILE.pdf`: it finds the form, checks who may print it and runs
    mi-report, which is installed next to mi. Exit status: 0 the PDF is written, 1 it is not
    (one message on stderr).

    USAGE: mi-report FORM_FOLDER OUTPUT.pdf [a4|letter|auto [PICTURES_FOLDER]]

    ARGUMENTS:
      FORM_FOLDER             The form's folder in the store (form.json and its media).
      OUTPUT.pdf              The PDF to write.
      a4|letter|auto          The paper size; auto (the default) takes letter when the first
                              of LC_ALL, LC_PAPER and LANG that is set names the US, Canada,
                              Mexico or the Philippines, else A4.
      PICTURES_FOLDER         The folder of the pictures the template's questions show.

    OPTIONS:
      -h, --help              Show help information.

    """
if arguments.count == 2, ["-h", "--help"].contains(arguments[1]) {
    print(help, terminator: "")
    exit(0)
}
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mi-report: \(message)\n".utf8))
    exit(1)
}
guard (3...5).contains(arguments.count) else {
    fail("usage: mi-report FORM_FOLDER OUTPUT.pdf [a4|letter|auto [PICTURES_FOLDER]] — use `mi print FORM --output FILE.pdf`")
}
let folder = URL(fileURLWithPath: arguments[1], isDirectory: true)
let paper: Paper
let pictures = arguments.count == 5 ? URL(fileURLWithPath: arguments[4], isDirectory: true) : nil
switch arguments.count >= 4 ? arguments[3] : "auto" {
case "a4": paper = .a4
case "letter": paper = .letter
case "auto": paper = Paper.fromLocale(ProcessInfo.processInfo.environment)
case let other: fail("paper must be a4, letter or auto, found \(other)")
}
do {
    let data = try Data(contentsOf: folder.appendingPathComponent(Store.formFileName))
    let form = try FormFile.decode(data)
    try FormReport(form: form, formFolder: folder, paper: paper, picturesFolder: pictures).write(to: URL(fileURLWithPath: arguments[2]))
} catch let error as FormFileError {
    fail("the form in \(folder.path) cannot be read: \(error.reason)")
} catch {
    fail(error.localizedDescription)
}
