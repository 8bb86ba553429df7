// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MI",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mi", targets: ["mi"]),
        .executable(name: "mi-report", targets: ["mi-report"]),
        .library(name: "MIKit", targets: ["MIKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Linux system calls that Swift's Glibc module does not expose (renameat2).
        .target(name: "CMISystem"),
        // Domain and store: configuration, templates, forms, the folder hierarchy. No network, no terminal.
        .target(name: "MIKit", dependencies: ["CMISystem"]),
        // OpenLDAP's libldap.
        .systemLibrary(name: "CLDAP", pkgConfig: "ldap", providers: [.apt(["libldap2-dev"])]),
        // The organisation's directory: search-then-bind login, roles from group membership, users.
        .target(name: "MIDirectory", dependencies: ["CLDAP"]),
        // The `mi` commands: argument parsing, prompts, tables, JSON output.
        .target(name: "MICLI", dependencies: [
            "MIKit",
            "MIDirectory",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "mi", dependencies: ["MICLI"]),
        // The PDF writer `mi print` runs: cairo and pango are loaded only when printing.
        .executableTarget(name: "mi-report", dependencies: ["MIKit", "MIReport"]),
        // cairo + pango, for the printable PDF of a form.
        .systemLibrary(name: "CCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        // The printable PDF of a form (cairo's PDF surface, pango text).
        .target(name: "MIReport", dependencies: ["MIKit", "CCairo"]),

        .target(name: "TestSupport", dependencies: ["MIKit"], path: "Tests/TestSupport"),
        .testTarget(name: "MIReportTests", dependencies: ["MIReport", "MIKit"]),
        .testTarget(name: "MIKitTests", dependencies: ["MIKit", "TestSupport"]),
        .testTarget(name: "MIDirectoryTests", dependencies: ["MIDirectory", "CLDAP"]),
        .testTarget(name: "MIEndToEndTests", dependencies: ["mi", "mi-report"]),
    ]
)
