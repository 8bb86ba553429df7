import ArgumentParser
import Foundation
import MIKit
import MIDevices
import MITransport

extension MI {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a form from a cached template.",
            discussion: """
                A template answered once per person ("oncePerUser") is refused while you have a form of \
                it here, incomplete or submitted, or on the server: when logged in online the server's \
                list is asked and remembered, so the refusal holds offline too.

                A template with "captureLocation": true records where the form is started: from gpsd \
                (Location.GPSD in Config.plist, waiting up to --gps-timeout seconds, the accuracy shown on a \
                terminal), or from --location "LATITUDE LONGITUDE [ALTITUDE] [ACCURACY]". When gpsd gives no fix \
                the form is still started, without a location, and its audit trail says why. A start the \
                once-per-user rule refuses is refused before gpsd is asked.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template's id (see `mi templates`).", valueName: "template"), completion: Completions.templates)
        var template: String

        @Option(help: "The form's name (default: <template>-<date>-<time>).")
        var name: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("Where the form is started, instead of asking gpsd: \"19.4326 -99.1332 [altitude] [accuracy]\".",
                                   valueName: "lat lon"))
        var location: String?

        @Option(name: .customLong("gps-timeout"), help: ArgumentHelp("Seconds to wait for gpsd's fix (captureLocation templates).", valueName: "seconds"))
        var gpsTimeout = GPSFix.defaultTimeout

        @Option(name: .customLong("lang"), help: ArgumentHelp("The language the form is filled and printed in, one of its template's (a name or a code: es, en); default: Fill.Language in Config.plist, else LANG's when the template has it.", valueName: "language"))
        var language: String?

        func validate() throws {
            guard (1...3600).contains(gpsTimeout) else {
                throw ValidationError("--gps-timeout must be 1 to 3600 seconds, got \(gpsTimeout)")
            }
        }


        func run() throws {
            let context = try Context.technician(global)
            try checkServer(context)
            // A refused start is said at once, before waiting for gpsd's fix; `startForm` checks
            // again under the lock that creates the form.
            try context.locked { workflow in
                try workflow.checkOncePerUser(try workflow.templates.template(id: template), user: workflow.actor.name)
            }
            let start = try startLocation(context)
            let (_, form) = try context.run {
                try $0.startForm(templateID: template, name: name, displayName: context.session.displayName, startLocation: start,
                                 language: context.configuration.fillLanguage ?? ProcessInfo.processInfo.environment["LANG"],
                                 requiredLanguage: language)
            }
            if global.json {
                try Terminal.json(FormSummaryJSON(form.summary, expiry: context.configuration.expiry, now: context.workflow.now()))
            } else {
                Terminal.out("Started \(form.name) (id \(form.id.description)) from \(form.template.id) v\(form.template.version), \(Format.plural(form.template.questions.count, "question")).")
                if let point = form.startLocation {
                    Terminal.out("Started at \(point).")
                }
                Terminal.out("Fill it with: \(ShellWord.mi("fill", form.name))")
            }
        }

        /// Where a `captureLocation` template's form starts: `--location` as typed (a bad one
        /// refuses, nothing is created), else gpsd's fix; nil for other templates (which refuse
        /// `--location`). No fix is not a failure:
        /// the form is started without a location, saying why here and in its audit trail.
        func startLocation(_ context: Context) throws -> StartLocation? {
            let cached = try context.locked { try $0.templates.template(id: template) }
            guard cached.captureLocation else {
                if location != nil {
                    throw ValidationError("--location: template \(cached.id) does not record where its forms are started (no \"captureLocation\": true)")
                }
                return nil
            }
            if let location {
                do {
                    return .point(try Geopoint.parse(location), source: "typed with --location")
                } catch {
                    throw LocationOptionError(rule: error.rule)
                }
            }
            do {
                let address = try GPSFix.address(context.configuration)
                let point = try GPSFix.take(context.configuration, accuracy: nil, timeout: gpsTimeout)
                return .point(point, source: "gpsd at \(address)")
            } catch let error as GPSDError {
                let reason = error.errorDescription ?? error.code
                Terminal.warning("no location recorded: \(reason) — the form is started without one (or give --location \"LAT LON\")")
                return .unavailable(reason: reason)
            }
        }

        /// For a once-per-user template, asks the server (when the session has its token) which
        /// forms of it the user has, and remembers them for `startForm`'s rule. Offline, or when
        /// the server cannot answer, what the store remembers decides.
        func checkServer(_ context: Context) throws {
            let cached = try context.locked { try $0.templates.template(id: template) }
            guard cached.oncePerUser, context.session.validServerToken(now: Date()) != nil else { return }
            let listing: [SubmissionSummary]
            do {
                listing = try ServerAccess.client(context).submissions(template: cached.id, user: context.actor.name)
            } catch {
                Terminal.note("could not ask the server for your forms of \(cached.id) (\(error.localizedDescription)) — going by the forms this store knows")
                return
            }
            _ = try context.locked { try $0.rememberOnServer(listing, of: cached, user: context.actor.name) }
        }
    }
}

/// `mi new --location` that is not a point; nothing was created.
struct LocationOptionError: ClassifiedError {
    let rule: String
    var failureClass: FailureClass { .badData }
    var code: String { "invalid-location" }
    var errorDescription: String? { "--location: \(rule) — no form was started" }
}
