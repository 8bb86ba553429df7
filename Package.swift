// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MI",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mi", targets: ["mi"]),
        .library(name: "MIKit", targets: ["MIKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Linux system calls that Swift's Glibc module does not expose (renameat2).
        .target(name: "CSystem"),
        // Domain and store: configuration, templates, forms, the folder hierarchy. No network, no terminal.
        .target(name: "MIKit", dependencies: ["CSystem"]),
        // The `mi` commands: argument parsing, prompts, tables, JSON output.
        .target(name: "MICLI", dependencies: [
            "MIKit",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "mi", dependencies: ["MICLI"]),

        .target(name: "TestSupport", dependencies: ["MIKit"], path: "Tests/TestSupport"),
        .testTarget(name: "MIKitTests", dependencies: ["MIKit", "TestSupport"]),
        .testTarget(name: "MIEndToEndTests", dependencies: ["mi", "TestSupport"]),
    ]
)
