import ArgumentParser
import Foundation
import MIDirectory
import MIKit
import MITransport
#if canImport(Glibc)
import Glibc
#endif

extension MI {
    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in with your directory (LDAP) user name and password.",
            discussion: "Prompts for what is missing, without echoing the password. The session is kept owner-only in $XDG_STATE_HOME/mi/ (never the password) until Server.TokenMinutes pass.")

        @OptionGroup var global: GlobalOptions

        @Option(help: "Your user name.")
        var user: String?

        @Flag(help: "Read the password from the first line of standard input (for scripts).")
        var passwordStdin = false

        struct Output: Encodable {
            var user: String
            var displayName: String
            var role: String
            var expiresAt: Date
            var server: Bool
            var messages: [UserMessage]
            var expiringSoon: [Expiring]
            struct Expiring: Encodable { var name: String; var id: String; var expiresAt: Date }
        }

        func run() throws {
            let configuration = try Context.loadConfiguration(global)
            let userName = try user ?? Prompt.line("User name: ")
            let password = try passwordStdin ? Prompt.passwordFromStdin() : Prompt.password("Password for \(userName): ")
            let directory = try Directory.service(configuration)
            let found = try directory.authenticate(user: userName, password: password)
            let now = Date()
            var session = Session(user: found.userName, dn: found.dn, displayName: found.displayName,
                                  role: found.role, directory: configuration.ldap.url, loginAt: now,
                                  expiresAt: now.addingTimeInterval(Double(configuration.server.tokenMinutes) * 60))
            try SafeName.check(session.user, as: "user name")
            // The server token for downloads and uploads; without the server, work goes on offline.
            var serverNote: String?
            do {
                let server = try ServerClient(server: configuration.server, retry: .none)
                    .createSession(user: found.userName, password: password)
                session.serverToken = server.token
                session.serverTokenExpiresAt = server.expiresAt
            } catch {
                serverNote = "working offline: \(error.localizedDescription) — templates and uploads will need `mi login` again once the server is reachable"
            }
            try Identity.sessions.save(session)

            // Messages waiting for the user, and their forms close to expiry.
            let workflow = Workflow(configuration: configuration, actor: session.actor)
            let (messages, expiring) = try Context.withLock(workflow) { listing -> ([UserMessage], [ListedForm]) in
                let messages = try workflow.store.messages(for: session.user)
                try workflow.store.clearMessages(for: session.user)
                let expiring = try (listing?.list(.incomplete, user: session.user) ?? workflow.store.list(.incomplete, user: session.user)).forms.filter {
                    configuration.expiry.isSoon($0.summary, now: now)
                }
                if session.role == .technician { ReminderNotes.showDue(workflow) }
                return (messages, expiring)
            }
            let days = configuration.expiryDays
            if global.json {
                if let serverNote { Terminal.note(serverNote) }
                try Terminal.json(Output(
                    user: session.user, displayName: session.displayName, role: session.role.rawValue,
                    expiresAt: session.expiresAt, server: session.serverToken != nil, messages: messages,
                    expiringSoon: expiring.map { .init(name: $0.summary.name, id: $0.summary.id.description,
                                                       expiresAt: Store.expiryDate(of: $0.summary, expiryDays: days)) }))
                return
            }
            if let serverNote { Terminal.note(serverNote) }
            Terminal.out("Logged in as \(session.displayName) (\(session.user)), \(session.role.rawValue), until \(Format.date(session.expiresAt)).")
            if !messages.isEmpty {
                Terminal.out("")
                Terminal.out("Messages for you:")
                for message in messages { Terminal.out("  \(Format.date(message.at))  \(DisplayText.escaped(message.text))") }
            }
            if !expiring.isEmpty {
                Terminal.out("")
                Terminal.out("Forms close to expiry (incomplete forms are deleted \(days) days after they were started):")
                for form in expiring {
                    Terminal.out("  \(form.summary.name): expires \(Format.date(Store.expiryDate(of: form.summary, expiryDays: days))) — finish it with `\(ShellWord.mi("fill", form.summary.name))`")
                }
            }
        }
    }

    struct Logout: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End your session.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let removed = try Identity.sessions.remove()
            if global.json { try Terminal.json(["loggedOut": removed]) } else {
                Terminal.out(removed ? "Logged out." : "You were not logged in.")
            }
        }
    }

    struct WhoAmI: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Who is logged in, as what, until when.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let configuration = try Context.loadConfiguration(global)
            let session = try Identity.current(configuration: configuration)
            if global.json {
                // Never the bearer token: --json output ends up in logs and bug reports.
                struct Output: Encodable {
                    var user: String
                    var displayName: String
                    var role: String
                    var directory: String
                    var loginAt: Date
                    var expiresAt: Date
                    var server: Bool
                    var serverTokenExpiresAt: Date?
                }
                try Terminal.json(Output(user: session.user, displayName: session.displayName, role: session.role.rawValue,
                                         directory: session.directory, loginAt: session.loginAt, expiresAt: session.expiresAt,
                                         server: session.validServerToken(now: Date()) != nil,
                                         serverTokenExpiresAt: session.serverTokenExpiresAt))
            } else {
                Terminal.out("\(session.displayName) (\(session.user)), \(session.role.rawValue), logged in \(Format.date(session.loginAt)), session until \(Format.date(session.expiresAt))")
            }
        }
    }

    struct Users: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The directory's users and their roles (foremen).")
        @OptionGroup var global: GlobalOptions

        struct Item: Encodable { var user: String; var displayName: String; var role: String }

        func run() throws {
            let context = try Context.foreman(global)
            let users = try Directory.service(context.configuration).listUsers()
            let items = users.map { Item(user: $0.userName, displayName: $0.displayName, role: $0.role.rawValue) }
            if global.json {
                struct Output: Encodable { var users: [Item] }
                try Terminal.json(Output(users: items))
                return
            }
            var table = TableRenderer(["USER", "NAME", "ROLE"])
            for item in items { table.add([item.user, item.displayName, item.role]) }
            Terminal.out(table)
        }
    }
}

/// Questions at the terminal before a command has its context.
enum Prompt {
    static func line(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        guard let line = readLine(strippingNewline: true), !line.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("no user name given — pass --user NAME")
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// Reads a password with echo off; needs a terminal.
    static func password(_ prompt: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw ValidationError("no terminal to ask for the password — pipe it with --password-stdin")
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }

    /// The first line of standard input, exactly (spaces are part of a password).
    static func passwordFromStdin() throws -> String {
        guard var line = readLine(strippingNewline: true) else {
            throw ValidationError("--password-stdin: standard input was empty")
        }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }
}
