// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MI",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mi", targets: ["mi"]),
        .executable(name: "mi-report", targets: ["mi-report"]),
        .executable(name: "mi-server", targets: ["mi-server"]),
        .library(name: "MIKit", targets: ["MIKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.26.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // Linux system calls that Swift's Glibc module does not expose (renameat2).
        .target(name: "CMISystem"),
        // Domain and store: configuration, templates, forms, the folder hierarchy. No network, no terminal.
        // Also the HTTP API's wire types (MIKit/API), shared by mi-server and the transport.
        .target(name: "MIKit", dependencies: [
            "CMISystem",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // .xlsx workbooks read and written (zip through ZIPFoundation, XML read with libxml2's SAX2
        // parser), and XLSForm ⇄ template (MIXLSForm/XLSForm: the one conversion `mi` and mi-server use);
        // a target of its own so MIKit stays free of zip and XML.
        .target(name: "MIXLSForm", dependencies: [
            "MIKit", "CLibXML2",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]),
        // libxml2, for reading the XML parts of .xlsx workbooks.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // Prints what MIXLSForm reads from a workbook as JSON (development, tests, scripts/bench-xlsx.sh).
        .executableTarget(name: "xlsx-dump", dependencies: ["MIXLSForm"]),
        // OpenLDAP's libldap.
        .systemLibrary(name: "CLDAP", pkgConfig: "ldap", providers: [.apt(["libldap2-dev"])]),
        // The organisation's directory: search-then-bind login, roles from group membership, users.
        .target(name: "MIDirectory", dependencies: ["MIKit", "CLDAP"]),
        // Devices a form is answered with: a position from gpsd (its JSON protocol over a POSIX
        // socket) and barcodes read from photos by Debian's zbarimg. Blocking calls; no terminal.
        .target(name: "MIDevices", dependencies: ["MIKit"]),
        // The `mi` commands: argument parsing, prompts, tables, JSON output.
        .target(name: "MICLI", dependencies: [
            "MIKit",
            "CMISystem",
            "MIDevices",
            "MIDirectory",
            "MITransport",
            "MIXLSForm",
            "CEdit",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "mi", dependencies: ["MICLI"]),
        // Debian's libedit (BSD editline), for line editing in `mi fill`.
        .systemLibrary(name: "CEdit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        // libcurl, for the CLI's HTTP transport.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // HTTP to mi-server over libcurl: templates, session tokens, streamed uploads with receipts.
        .target(name: "MITransport", dependencies: [
            "MIKit", "CCurl",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // mi-server's application: routes, controllers, tokens, HTTPS (swift-nio-ssl), the SQLite and PostgreSQL repositories, and the
        // office web app (mustache views, CSS and JS embedded in the binary: one file to deploy).
        .target(name: "MIServer", dependencies: [
            "MIKit", "MIDirectory", "CMISystem", "MIXLSForm",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Mustache", package: "swift-mustache"),
        ], resources: [.embedInCode("Office/Assets")]),
        .executableTarget(name: "mi-server", dependencies: ["MIServer"]),
        // The PDF writer `mi print` runs: cairo and pango are loaded only when printing.
        .executableTarget(name: "mi-report", dependencies: ["MIKit", "MIReport"]),
        // cairo + pango, for the printable PDF of a form.
        .systemLibrary(name: "CCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        // The printable PDF of a form (cairo's PDF surface, pango text).
        .target(name: "MIReport", dependencies: ["MIKit", "CCairo"]),

        .target(name: "TestSupport", dependencies: ["MIKit"], path: "Tests/TestSupport"),
        .testTarget(name: "MIReportTests", dependencies: ["MIReport", "MIKit", "TestSupport"]),
        .testTarget(name: "MIKitTests", dependencies: ["MIKit", "TestSupport"]),
        .testTarget(name: "MIDevicesTests", dependencies: ["MIDevices", "MIKit", "TestSupport"],
                    resources: [.copy("Resources/fix.nmea"), .copy("Resources/nofix.nmea"), .copy("Resources/draw_codes.py")]),
        .testTarget(name: "MICLITests", dependencies: ["MICLI"]),
        .testTarget(name: "MIXLSFormTests", dependencies: ["MIXLSForm", "xlsx-dump", "TestSupport"],
                    resources: [.copy("Resources/xlsx_oracle.py"), .copy("Resources/xlsform_oracle.py")]),
        .testTarget(name: "MIDirectoryTests", dependencies: ["MIDirectory", "MIKit", "CLDAP", "TestSupport"]),
        .testTarget(name: "MIServerTests", dependencies: [
            "MIServer", "MIKit", "MIXLSForm", "TestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ], exclude: ["Resources/upgrade"]),
        .testTarget(name: "MITransportTests", dependencies: ["MITransport", "TestSupport"],
                    resources: [.copy("Resources/mi_test_server.py")]),
        .testTarget(name: "MIEndToEndTests", dependencies: ["mi", "mi-report", "mi-server", "TestSupport"],
                    resources: [.copy("Resources/mi_test_proxy.py"), .copy("Resources/mi_office_browser.py"),
                                .copy("Resources/mi_export_check.py"),
                                .copy("Resources/Golden")]),
    ]
)
