import ArgumentParser

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Config.plist to use (default: $MI_CONFIG, ./Config.plist, ~/.config/mi/Config.plist, /etc/mi/Config.plist).", valueName: "path"), completion: .file(extensions: ["plist"]))
    var config: String?

    @Flag(name: .long, help: "Print one JSON document on stdout, for scripts.")
    var json = false
}
