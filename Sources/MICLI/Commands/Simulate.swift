import ArgumentParser
import Foundation
import MIKit

extension MI {
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create forms with random valid answers, to try statistics and exports (marked simulated).",
            discussion: """
                Creates COUNT forms of TEMPLATE named sim-<seed>-<n>, each question answered within its rules \
                (about 5 % left with a comment instead), as `mi new` and `mi answer` would. The same --seed \
                gives the same answers on any computer; without one a seed is chosen and printed. With --submit \
                every form is submitted as `mi submit` would; submitted forms are dated over the last 30 days, \
                forms left incomplete within ExpiryDays. Every form's history says it was simulated, and \
                mi-server refuses such forms unless Server.AcceptSimulated is true. Locations (location \
                questions, and where forms are started for a template with captureLocation) lie within 3 km of \
                --near "LATITUDE LONGITUDE [ALTITUDE]", or without it of a place drawn from the seed.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template id (`mi templates` lists them).", valueName: "template"), completion: Completions.templates)
        var template: String

        @Option(help: ArgumentHelp("How many forms, 1 to 10,000.", valueName: "n"))
        var count: Int

        @Option(help: ArgumentHelp("The random seed (a whole number from 0): the same seed, the same forms.", valueName: "s"))
        var seed: UInt64?

        @Flag(help: "Submit every form (each passes `mi submit`'s checks).")
        var submit = false

        @Option(help: ArgumentHelp("Where the simulated locations lie (within 3 km): \"19.4326 -99.1332 [altitude]\".", valueName: "lat lon"))
        var near: String?

        func validate() throws {
            guard let near else { return }
            do { _ = try Geopoint.parse(near) } catch { throw ValidationError("--near: \(error.rule)") }
        }

        struct Output: Encodable { var seed: UInt64; var forms: [FormJSON] }

        func run() throws {
            try SimulationRequest.check(count: count)
            let context = try Context.technician(global)
            let chosenSeed = seed ?? UInt64.random(in: 0...UInt64(Int64.max))
            let base = near.flatMap { try? Geopoint.parse($0) }     // checked by validate()
            let request = SimulationRequest(templateID: template, count: count, seed: chosenSeed, submit: submit, near: base)
            let forms = try context.run { try $0.simulate(request, displayName: context.session.displayName) }
            if global.json {
                try Terminal.json(Output(seed: chosenSeed, forms: forms.map { FormJSON($0, history: true) }))
                return
            }
            let names = forms.count == 1 ? request.name(1) : "\(request.name(1)) … \(request.name(forms.count))"
            let state = submit ? "submitted" : "incomplete"
            Terminal.out("Simulated \(Format.plural(forms.count, "form")) of \(template) (\(names)), \(state), from seed \(chosenSeed).")
            if seed == nil { Terminal.out("Repeat them with: \(ShellWord.mi("simulate", template)) --count \(count) --seed \(chosenSeed)") }
        }
    }
}
