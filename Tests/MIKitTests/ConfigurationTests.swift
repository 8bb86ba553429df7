import Foundation
import MIKit
import TestSupport
import XCTest

final class ConfigurationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "mikit-config")
    }

    override func tearDown() {
        directory = nil
    }

    /// Checks the standard configuration with `edits`, written as an XML plist.
    private func check(_ edits: [ConfigEdit], format: PropertyListSerialization.PropertyListFormat = .xml)
        throws -> ConfigurationReport {
        ConfigurationLoader.check(try ConfigFixture.write(into: directory.url, edits, format: format))
    }

    /// The error descriptions (`key.path: message`) of a report.
    private func errors(_ report: ConfigurationReport) -> [String] { report.errors.map(\.description) }

    // MARK: - Good plists

    func testGoodXMLPlistLoadsEveryValue() throws {
        let url = try ConfigFixture.write(into: directory.url)
        let configuration = try ConfigurationLoader.load(from: url)

        XCTAssertEqual(configuration.sourceURL, url)
        XCTAssertEqual(configuration.server.scheme, "https")
        XCTAssertEqual(configuration.server.domain, "mi.example.com")
        XCTAssertEqual(configuration.server.port, 8443)
        XCTAssertEqual(configuration.server.paths.template, "/api/v1/templates/{id}")
        XCTAssertEqual(configuration.server.listen, "127.0.0.1:8443")
        XCTAssertEqual(configuration.server.maxUploadBytes, 1_048_576)
        XCTAssertEqual(configuration.server.tokenMinutes, 60)
        XCTAssertEqual(configuration.ldap.url, "ldap://ldap.example.com")
        XCTAssertTrue(configuration.ldap.startTLS)
        XCTAssertEqual(configuration.ldap.baseDN, "ou=people,dc=example,dc=com")
        XCTAssertEqual(configuration.ldap.userFilter, "(&(objectClass=inetOrgPerson)(uid=%s))")
        XCTAssertEqual(configuration.ldap.groupMemberAttribute, "member")
        XCTAssertEqual(configuration.ldap.timeoutSeconds, 10)
        XCTAssertNil(configuration.ldap.bindDN)
        XCTAssertEqual(configuration.expiryDays, 7)
        XCTAssertEqual(configuration.reminderDays, [1, 2])
        XCTAssertEqual(configuration.templateKeys, .default)
        XCTAssertEqual(configuration.documents.path, directory.path("Documents").path)
    }

    func testGoodPlistHasNoProblemsAtAll() throws {
        let report = try check([])
        XCTAssertNotNil(report.configuration)
        XCTAssertEqual(report.problems, [])
    }

    func testBinaryPlistLoadsToTheSameConfigurationAsXML() throws {
        let xmlFolder = directory.path("xml")
        let binaryFolder = directory.path("binary")
        let xmlURL = try ConfigFixture.write(into: xmlFolder, format: .xml)
        let binaryURL = try ConfigFixture.write(into: binaryFolder, format: .binary)
        let binaryBytes = try Data(contentsOf: binaryURL)
        XCTAssertEqual(Array(binaryBytes.prefix(6)), Array("bplist".utf8), "the fixture must really be binary")

        let xml = try ConfigurationLoader.load(from: xmlURL)
        let binary = try ConfigurationLoader.load(from: binaryURL)
        assertEquivalent(xml, binary)
        // Each resolves Documents next to its own plist.
        XCTAssertEqual(binary.documents.path, binaryFolder.appendingPathComponent("Documents").path)
    }

    func testBinaryPlistMadeByPropertyListSerializationLoads() throws {
        let xml = try ConfigFixture.plist().data(format: .xml)
        let object = try PropertyListSerialization.propertyList(from: xml, options: [], format: nil)
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let binaryURL = directory.path("Config.plist")
        try binary.write(to: binaryURL)

        let fromBinary = try ConfigurationLoader.load(from: binaryURL)
        let fromXML = try XCTUnwrap(ConfigurationLoader.check(xml, source: binaryURL).configuration)
        assertEquivalent(fromXML, fromBinary)
    }

    func testShippedConfigPlistChecksWithoutErrors() throws {
        let url = TemplateFixture.repositoryRoot.appendingPathComponent("Config.plist")
        let report = ConfigurationLoader.check(url)
        XCTAssertEqual(report.errors, [], "\(report.errors)")
        let configuration = try XCTUnwrap(report.configuration)
        XCTAssertEqual(configuration.expiryDays, 7)
        XCTAssertEqual(configuration.reminderDays, [1, 2])
        XCTAssertEqual(configuration.templateKeys[.maxAnswers], "Max-answers")
    }

    // MARK: - Bad files

    func testMissingFileIsOneProblemNamingThePath() {
        let url = directory.path("nowhere", "Config.plist")
        let report = ConfigurationLoader.check(url)
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1)
        XCTAssertTrue(report.errors[0].message.contains(url.path), report.errors[0].message)
        XCTAssertThrowsError(try ConfigurationLoader.load(from: url)) { error in
            XCTAssertTrue(error is ConfigurationError, "\(error)")
        }
    }

    func testGarbageBytesAreNotAValidPropertyList() {
        let report = ConfigurationLoader.check(Data("garbage {{{ <not a plist>".utf8), source: directory.path("Config.plist"))
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1)
        XCTAssertEqual(report.errors[0].keyPath, "")
        XCTAssertTrue(report.errors[0].message.hasPrefix("not a valid property list"), report.errors[0].message)
    }

    func testBinaryJunkIsNotAValidPropertyList() {
        let junk = Data([0xFF, 0xFE, 0x00, 0x01, 0x80, 0x7F, 0x00, 0x00, 0x13])
        let report = ConfigurationLoader.check(junk, source: directory.path("Config.plist"))
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1)
        XCTAssertTrue(report.errors[0].message.hasPrefix("not a valid property list"), report.errors[0].message)
    }

    func testTruncatedXMLIsNotAValidPropertyList() throws {
        let full = try ConfigFixture.plist().data(format: .xml)
        let truncated = full.prefix(full.count / 2)
        let url = directory.path("Config.plist")
        try truncated.write(to: url)
        let report = ConfigurationLoader.check(url)
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1)
        XCTAssertTrue(report.errors[0].message.hasPrefix("not a valid property list"), report.errors[0].message)
        XCTAssertThrowsError(try ConfigurationLoader.load(from: url)) { error in
            let configurationError = error as? ConfigurationError
            XCTAssertEqual(configurationError?.url, url)
            XCTAssertTrue(error.localizedDescription.contains("not a valid property list"), error.localizedDescription)
        }
    }

    func testEmptyFileIsNotAValidPropertyList() throws {
        let url = directory.path("Config.plist")
        try Data().write(to: url)
        let report = ConfigurationLoader.check(url)
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1)
        XCTAssertTrue(report.errors[0].message.hasPrefix("not a valid property list"), report.errors[0].message)
    }

    func testTopLevelArrayIsRefused() throws {
        let data = try PlistNode.array(["Server", "LDAP"]).data()
        let report = ConfigurationLoader.check(data, source: directory.path("Config.plist"))
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["the top level must be a dictionary, found an array"])
    }

    func testTopLevelStringIsRefused() {
        let xml = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><string>Server</string></plist>"#
        let report = ConfigurationLoader.check(Data(xml.utf8), source: directory.path("Config.plist"))
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["the top level must be a dictionary, found a string"])
    }

    // MARK: - Missing keys and wrong types

    func testMissingLDAPURLIsReportedWithKeyPath() throws {
        let report = try check([.remove("LDAP.URL")])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["LDAP.URL: missing"])
        XCTAssertEqual(report.errors.first?.keyPath, "LDAP.URL")
        XCTAssertEqual(report.errors.first?.message, "missing")
    }

    func testMissingTopLevelKeysAreEachReported() throws {
        let report = try check([.remove("Documents"), .remove("ExpiryDays"), .remove("ReminderDays")])
        XCTAssertEqual(Set(errors(report)), ["Documents: missing", "ExpiryDays: missing", "ReminderDays: missing"])
        XCTAssertEqual(report.errors.count, 3)
    }

    func testMissingServerDictionaryIsReported() throws {
        let report = try check([.remove("Server")])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["Server: missing"])
    }

    func testStringExpiryDaysIsAWrongTypeError() throws {
        let report = try check([.set("ExpiryDays", "7")])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["ExpiryDays: expected an integer, found a string"])
    }

    func testWrongTypesNameExpectedAndFoundKinds() throws {
        let report = try check([
            .set("Server.Port", "8443"),
            .set("LDAP.StartTLS", "yes"),
            .set("Documents", 42),
        ])
        XCTAssertEqual(Set(errors(report)), [
            "Server.Port: expected an integer, found a string",
            "LDAP.StartTLS: expected a boolean, found a string",
            "Documents: expected a string, found an integer",
        ])
    }

    func testAcceptSimulatedDefaultsToFalseAndReadsABoolean() throws {
        XCTAssertFalse(try XCTUnwrap(try check([]).configuration).server.acceptSimulated)
        XCTAssertTrue(try XCTUnwrap(try check([.set("Server.AcceptSimulated", true)]).configuration).server.acceptSimulated)
        XCTAssertEqual(errors(try check([.set("Server.AcceptSimulated", "yes")])),
                       ["Server.AcceptSimulated: expected a boolean, found a string"])
    }

    func testLocationGPSDDefaultsToTheLocalGpsdAndIsCheckedAsHostAndPort() throws {
        XCTAssertEqual(try XCTUnwrap(try check([]).configuration).location.gpsd, "127.0.0.1:2947")
        XCTAssertEqual(try XCTUnwrap(try check([.set("Location", ["GPSD": "[::1]:2948"])]).configuration).location.gpsd, "[::1]:2948")
        XCTAssertEqual(try XCTUnwrap(try check([.set("Location", ["GPSD": "gps.local"])]).configuration).location.gpsd, "gps.local")
        XCTAssertEqual(errors(try check([.set("Location", ["GPSD": "gps.local:70000"])])),
                       [#"Location.GPSD: "gps.local:70000" is not gpsd's address: the port "70000" is not a number from 1 to 65535 — write HOST:PORT, e.g. 127.0.0.1:2947"#])
        XCTAssertEqual(errors(try check([.set("Location", ["GPSD": 2947])])), ["Location.GPSD: expected a string, found an integer"])
        XCTAssertEqual(try check([.set("Location", ["GPSD": "127.0.0.1:2947", "Baud": 9600])]).warnings.map(\.description).count, 1)
    }

    func testFillLanguageIsOptionalAndMustBeAName() throws {
        XCTAssertNil(try XCTUnwrap(try check([]).configuration).fillLanguage)
        XCTAssertEqual(try XCTUnwrap(try check([.set("Fill", ["Language": " es "])]).configuration).fillLanguage, "es")
        XCTAssertEqual(errors(try check([.set("Fill", ["Language": "  "])])), ["Fill.Language: empty"])
        XCTAssertEqual(errors(try check([.set("Fill", ["Language": "es\u{1B}[2J"])])),
                       [#"Fill.Language: expected a language name or code such as es or "Español (es)""#])
        XCTAssertEqual(try check([.set("Fill", ["Language": "es", "Colour": "red"])]).warnings.count, 1)
    }

    func testTLSFilesAreAbsentByDefaultAndResolvedAgainstThePlistFolder() throws {
        XCTAssertNil(try XCTUnwrap(try check([]).configuration).server.tls)
        let configuration = try XCTUnwrap(try check([.set("Server.TLSCertificateFile", "tls/server.pem"),
                                                     .set("Server.TLSKeyFile", "/etc/mi/server.key")]).configuration)
        XCTAssertEqual(configuration.server.tls, .init(certificateFile: directory.path("tls/server.pem").path,
                                                       keyFile: "/etc/mi/server.key"))
    }

    func testTLSCertificateWithoutKeyOrKeyWithoutCertificateIsRefusedNamingTheOther() throws {
        XCTAssertEqual(errors(try check([.set("Server.TLSCertificateFile", "server.pem")])),
                       ["Server.TLSKeyFile: missing: TLSCertificateFile is set, so the certificate's private key (PEM) is needed to serve HTTPS"])
        XCTAssertEqual(errors(try check([.set("Server.TLSKeyFile", "server.key")])),
                       ["Server.TLSCertificateFile: missing: TLSKeyFile is set, so the certificate (PEM) it belongs to is needed to serve HTTPS"])
    }

    func testTLSFilesOfWrongTypeOrEmptyAreRefusedOnce() throws {
        XCTAssertEqual(errors(try check([.set("Server.TLSCertificateFile", 3), .set("Server.TLSKeyFile", "server.key")])),
                       ["Server.TLSCertificateFile: expected a string, found an integer"])
        XCTAssertEqual(errors(try check([.set("Server.TLSCertificateFile", "server.pem"), .set("Server.TLSKeyFile", " ")])),
                       ["Server.TLSKeyFile: empty"])
    }

    func testReminderDaysElementOfWrongTypeNamesItsIndex() throws {
        let report = try check([.set("ReminderDays", [1, "two"])])
        XCTAssertEqual(errors(report), ["ReminderDays[1]: expected an integer, found a string"])
    }

    func testServerThatIsNotADictionaryIsAWrongTypeError() throws {
        let report = try check([.set("Server", "https://mi.example.com")])
        XCTAssertEqual(errors(report), ["Server: expected a dictionary, found a string"])
    }

    func testEmptyStringIsAnError() throws {
        let report = try check([.set("LDAP.BaseDN", "  ")])
        XCTAssertEqual(errors(report), ["LDAP.BaseDN: empty"])
    }

    func testSeveralProblemsAreReportedAtOnce() throws {
        let report = try check([
            .remove("LDAP.URL"),
            .set("ExpiryDays", "seven"),
            .set("Server.Port", 0),
            .set("Server.Scheme", "ftp"),
        ])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 4, "\(report.errors)")
        XCTAssertEqual(Set(report.errors.map(\.keyPath)), ["LDAP.URL", "ExpiryDays", "Server.Port", "Server.Scheme"])

        let url = try ConfigFixture.write(into: directory.url, [
            .remove("LDAP.URL"), .set("ExpiryDays", "seven"), .set("Server.Port", 0), .set("Server.Scheme", "ftp"),
        ])
        XCTAssertThrowsError(try ConfigurationLoader.load(from: url)) { error in
            let configurationError = error as? ConfigurationError
            XCTAssertEqual(configurationError?.problems.filter { $0.severity == .error }.count, 4)
            XCTAssertTrue(error.localizedDescription.contains("has 4 problems"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("LDAP.URL: missing"), error.localizedDescription)
        }
    }

    // MARK: - Unknown keys

    func testUnknownTopLevelKeyIsAWarningNotAnError() throws {
        let report = try check([.set("ExpiryDayz", 7)])
        XCTAssertNotNil(report.configuration)
        XCTAssertEqual(report.errors, [])
        XCTAssertEqual(report.warnings.map(\.description), ["ExpiryDayz: unknown key, ignored"])
        XCTAssertEqual(report.warnings.first?.severity, .warning)
    }

    func testUnknownNestedKeyWarningNamesItsKeyPath() throws {
        let report = try check([.set("LDAP.Timeout", 5), .set("Server.Paths.Upload", "/up")])
        XCTAssertNotNil(report.configuration)
        XCTAssertEqual(Set(report.warnings.map(\.keyPath)), ["LDAP.Timeout", "Server.Paths.Upload"])
        XCTAssertEqual(report.errors, [])
    }

    func testUnknownTemplateKeyIsAWarning() throws {
        let report = try check([.set("TemplateKeys.maxAnswer", "max")])
        XCTAssertNotNil(report.configuration)
        XCTAssertEqual(report.warnings.map(\.keyPath), ["TemplateKeys.maxAnswer"])
    }

    func testUploadAndClientLimitDefaultsAndValues() throws {
        let defaults = try XCTUnwrap(try check([]).configuration).server
        XCTAssertEqual(defaults.resumableThresholdBytes, 8 << 20)
        XCTAssertEqual(defaults.resumableExpiryHours, 24)
        XCTAssertEqual(defaults.paths.uploads, "/api/v1/uploads")
        XCTAssertEqual(defaults.limits, .defaults)
        XCTAssertEqual(defaults.url(.uploads)?.absoluteString, "https://mi.example.com:8443/api/v1/uploads")

        let set = try XCTUnwrap(try check([
            .set("Server.ResumableThresholdBytes", 1_048_576), .set("Server.ResumableExpiryHours", 2),
            .set("Server.Paths.Uploads", "/tus"), .set("Server.HeaderTimeoutSeconds", 3),
            .set("Server.BodyTimeoutSeconds", 4), .set("Server.MinimumBytesPerSecond", 0),
            .set("Server.MaxConnectionsPerAddress", 5), .set("Server.IdleTimeoutSeconds", 7),
        ]).configuration).server
        XCTAssertEqual(set.resumableThresholdBytes, 1 << 20)
        XCTAssertEqual(set.resumableExpiryHours, 2)
        XCTAssertEqual(set.paths.uploads, "/tus")
        XCTAssertEqual(set.limits, Configuration.Server.Limits(headerTimeoutSeconds: 3, bodyTimeoutSeconds: 4,
                                                               minimumBytesPerSecond: 0, maxConnectionsPerAddress: 5,
                                                               idleTimeoutSeconds: 7))
        XCTAssertEqual(defaults.limits.idleTimeoutSeconds, 60)
    }

    func testUploadAndClientLimitsOutOfRangeAreRefused() throws {
        let report = try check([
            .set("Server.ResumableThresholdBytes", 0), .set("Server.ResumableExpiryHours", 0),
            .set("Server.HeaderTimeoutSeconds", 0), .set("Server.BodyTimeoutSeconds", 3601),
            .set("Server.MinimumBytesPerSecond", -1), .set("Server.MaxConnectionsPerAddress", 0),
            .set("Server.IdleTimeoutSeconds", 0),
        ])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(Set(report.errors.map(\.keyPath)), [
            "Server.ResumableThresholdBytes", "Server.ResumableExpiryHours", "Server.HeaderTimeoutSeconds",
            "Server.BodyTimeoutSeconds", "Server.MinimumBytesPerSecond", "Server.MaxConnectionsPerAddress",
            "Server.IdleTimeoutSeconds",
        ])
        XCTAssertTrue(errors(report).contains("Server.ResumableExpiryHours: must be between 1 and 8760 (a year), found 0"),
                      "\(errors(report))")
    }

    // MARK: - Bad values

    func testPortZeroIsRefused() throws {
        let report = try check([.set("Server.Port", 0)])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["Server.Port: must be between 1 and 65535, found 0"])
    }

    func testPortAbove65535IsRefused() throws {
        let report = try check([.set("Server.Port", 65536)])
        XCTAssertEqual(report.errors.map(\.keyPath), ["Server.Port"])
    }

    func testFTPSchemeIsRefused() throws {
        let report = try check([.set("Server.Scheme", "ftp")])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), [#"Server.Scheme: must be "http" or "https", found "ftp""#])
    }

    func testHTTPSchemeIsAccepted() throws {
        let report = try check([.set("Server.Scheme", "http")])
        XCTAssertEqual(report.configuration?.server.scheme, "http")
    }

    func testDomainWithSchemeIsRefused() throws {
        let report = try check([.set("Server.Domain", "https://mi.example.com")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["Server.Domain"])
    }

    func testUserFilterWithoutPercentSIsRefused() throws {
        let report = try check([.set("LDAP.UserFilter", "(uid=ana)")])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), ["LDAP.UserFilter: must contain %s where the user name goes, e.g. (&(objectClass=inetOrgPerson)(uid=%s))"])
    }

    /// Every `%s` becomes the user name, so a filter may look in two attributes (the directory does the same).
    func testUserFilterWithTwoPercentSIsAccepted() throws {
        let report = try check([.set("LDAP.UserFilter", "(|(uid=%s)(mail=%s))")])
        XCTAssertEqual(report.errors, [])
        XCTAssertEqual(report.configuration?.ldap.userFilter, "(|(uid=%s)(mail=%s))")
    }

    func testUserFilterWithoutParenthesesIsRefused() throws {
        let report = try check([.set("LDAP.UserFilter", "uid=%s")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["LDAP.UserFilter"])
        XCTAssertTrue(report.errors[0].message.contains("in parentheses"), report.errors[0].message)
    }

    func testTimeoutOutsideOneToThreeHundredSecondsIsRefused() throws {
        for seconds in [0, -1, 301] {
            let report = try check([.set("LDAP.TimeoutSeconds", .integer(seconds))])
            XCTAssertEqual(errors(report), ["LDAP.TimeoutSeconds: must be between 1 and 300, found \(seconds)"])
        }
        for seconds in [1, 300] {
            XCTAssertEqual(try check([.set("LDAP.TimeoutSeconds", .integer(seconds))]).configuration?.ldap.timeoutSeconds, seconds)
        }
    }

    /// Each rule on its own, as the directory calls them.
    func testLDAPRules() {
        XCTAssertNil(LDAPRules.url("ldaps://dir.example.com:636"))
        XCTAssertNotNil(LDAPRules.url("ldapi:///run/slapd.sock"))
        XCTAssertNotNil(LDAPRules.startTLS(true, url: "LDAPS://dir"))
        XCTAssertNil(LDAPRules.startTLS(true, url: "ldap://dir"))
        XCTAssertNil(LDAPRules.startTLS(false, url: "ldaps://dir"))
        XCTAssertNil(LDAPRules.userFilter("(uid=%s)"))
        XCTAssertNotNil(LDAPRules.userFilter("(uid=%s"))
        XCTAssertNil(LDAPRules.groupMemberAttribute("memberUid"))
        XCTAssertNotNil(LDAPRules.groupMemberAttribute("uniqueMember"))
        XCTAssertNil(LDAPRules.timeoutSeconds(10))
        XCTAssertNotNil(LDAPRules.timeoutSeconds(0))
    }

    // MARK: - LDAP.BindPasswordFile

    private func ldap(bindPasswordFile: String?, bindDN: String? = "cn=svc,dc=example,dc=com") throws -> Configuration.LDAP {
        var edits: [ConfigEdit] = [bindDN.map { .set("LDAP.BindDN", .string($0)) } ?? .remove("LDAP.BindDN")]
        if let bindPasswordFile { edits.append(.set("LDAP.BindPasswordFile", .string(bindPasswordFile))) }
        return try XCTUnwrap(try check(edits).configuration).ldap
    }

    func testBindPasswordIsTheFileWithoutItsNewline() throws {
        try Files.write("s3cret pass\n", to: directory.path("bind.pw"))
        XCTAssertEqual(try ldap(bindPasswordFile: "bind.pw").readBindPassword(), "s3cret pass")
        XCTAssertNil(try ldap(bindPasswordFile: nil, bindDN: nil).readBindPassword())
    }

    func testMissingBindPasswordFileIsAConfigurationErrorNamingTheKey() throws {
        let settings = try ldap(bindPasswordFile: "missing.pw")
        XCTAssertThrowsError(try settings.readBindPassword()) { error in
            let error = error as? ConfigurationError
            XCTAssertEqual(error?.failureClass, .configuration)
            XCTAssertEqual(error?.problems.map(\.keyPath), ["LDAP.BindPasswordFile"])
            XCTAssertTrue(error?.problems.first?.message.contains("does not exist") ?? false, "\(String(describing: error))")
        }
    }

    /// A folder where the file should be cannot be read as one, whoever runs the test.
    func testUnreadableBindPasswordFileIsAConfigurationError() throws {
        try FileManager.default.createDirectory(at: directory.path("bind.pw"), withIntermediateDirectories: false)
        let settings = try ldap(bindPasswordFile: "bind.pw")
        XCTAssertThrowsError(try settings.readBindPassword()) { error in
            XCTAssertTrue((error as? ConfigurationError)?.problems.first?.message.contains("cannot be read") ?? false, "\(error)")
        }
    }

    /// An empty service password would turn the search into an unauthenticated bind.
    func testEmptyBindPasswordWithBindDNIsRefused() throws {
        try Files.write("\n", to: directory.path("bind.pw"))
        XCTAssertThrowsError(try ldap(bindPasswordFile: "bind.pw").readBindPassword()) { error in
            XCTAssertEqual((error as? ConfigurationError)?.problems.map(\.keyPath), ["LDAP.BindPasswordFile"])
        }
    }

    func testRequireConfigurationThrowsEveryProblem() throws {
        let report = try check([.set("LDAP.URL", "http://x"), .set("ExpiryDays", 0)])
        XCTAssertThrowsError(try report.requireConfiguration()) { error in
            let errors = (error as? ConfigurationError)?.problems.filter { $0.severity == .error }
            XCTAssertEqual(errors?.map(\.keyPath), ["LDAP.URL", "ExpiryDays"])
        }
        XCTAssertNoThrow(try check([]).requireConfiguration())
    }

    func testGroupMemberAttributeOtherThanMemberOrMemberUidIsRefused() throws {
        let report = try check([.set("LDAP.GroupMemberAttribute", "uniqueMember")])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(errors(report), [#"LDAP.GroupMemberAttribute: must be "member" or "memberUid", found "uniqueMember""#])
    }

    func testMemberUidIsAccepted() throws {
        let report = try check([.set("LDAP.GroupMemberAttribute", "memberUid")])
        XCTAssertEqual(report.configuration?.ldap.groupMemberAttribute, "memberUid")
    }

    func testReminderDayZeroIsRefusedWithItsIndex() throws {
        let report = try check([.set("ReminderDays", [1, 0, 2])])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.map(\.keyPath), ["ReminderDays[1]"])
        XCTAssertTrue(report.errors[0].message.contains("found 0"), report.errors[0].message)
    }

    func testReminderDayAtExpiryIsOnlyAWarning() throws {
        let report = try check([.set("ReminderDays", [1, 7])])
        XCTAssertNotNil(report.configuration)
        XCTAssertEqual(report.warnings.map(\.keyPath), ["ReminderDays[1]"])
    }

    func testDuplicateReminderDaysWarnAndAreMerged() throws {
        let report = try check([.set("ReminderDays", [2, 1, 2])])
        XCTAssertEqual(report.warnings.map(\.keyPath), ["ReminderDays"])
        XCTAssertEqual(report.configuration?.reminderDays, [1, 2])
    }

    func testExpiryDaysZeroIsRefused() throws {
        let report = try check([.set("ExpiryDays", 0), .set("ReminderDays", [1])])
        XCTAssertEqual(report.errors.map(\.keyPath), ["ExpiryDays"])
    }

    func testStartTLSWithLDAPSURLIsRefused() throws {
        let report = try check([.set("LDAP.URL", "ldaps://ldap.example.com"), .set("LDAP.StartTLS", true)])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.map(\.keyPath), ["LDAP.StartTLS"])
    }

    func testLDAPSURLWithoutStartTLSIsAccepted() throws {
        let report = try check([.set("LDAP.URL", "ldaps://ldap.example.com"), .set("LDAP.StartTLS", false)])
        XCTAssertEqual(report.errors, [])
        XCTAssertEqual(report.configuration?.ldap.url, "ldaps://ldap.example.com")
    }

    func testHTTPLDAPURLIsRefused() throws {
        let report = try check([.set("LDAP.URL", "http://ldap.example.com")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["LDAP.URL"])
    }

    func testBindDNWithoutPasswordFileIsRefused() throws {
        let report = try check([.set("LDAP.BindDN", "cn=svc,dc=example,dc=com")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["LDAP.BindPasswordFile"])
    }

    func testTemplatePathWithoutIdPlaceholderIsRefused() throws {
        let report = try check([.set("Server.Paths.Template", "/api/v1/templates")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["Server.Paths.Template"])
    }

    func testPathNotStartingWithSlashIsRefused() throws {
        let report = try check([.set("Server.Paths.Session", "api/session")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["Server.Paths.Session"])
    }

    func testListenWithoutPortIsRefused() throws {
        let report = try check([.set("Server.Listen", "localhost")])
        XCTAssertEqual(report.errors.map(\.keyPath), ["Server.Listen"])
    }

    // MARK: - Paths relative to the plist

    func testRelativeDocumentsIsResolvedAgainstThePlistFolderNotTheWorkingDirectory() throws {
        let folder = directory.path("etc", "mi")
        let url = try ConfigFixture.write(into: folder, [.set("Documents", "../store/Documents")])
        let configuration = try ConfigurationLoader.load(from: url)
        XCTAssertEqual(configuration.documents.path, directory.path("etc", "store", "Documents").path)
        XCTAssertFalse(configuration.documents.path.hasPrefix(FileManager.default.currentDirectoryPath + "/"),
                       "must not depend on the working directory")
    }

    func testAbsoluteDocumentsIsKeptAsIs() throws {
        let url = try ConfigFixture.write(into: directory.url, [.set("Documents", "/srv/mi/Documents")])
        XCTAssertEqual(try ConfigurationLoader.load(from: url).documents.path, "/srv/mi/Documents")
    }

    func testServerDirectoriesDefaultNextToThePlist() throws {
        let url = try ConfigFixture.write(into: directory.url)
        let configuration = try ConfigurationLoader.load(from: url)
        XCTAssertEqual(configuration.server.templatesDirectory.path, directory.path("ServerTemplates").path)
        XCTAssertEqual(configuration.server.dataDirectory.path, directory.path("ServerData").path)
    }

    // MARK: - locate

    func testLocatePrefersTheExplicitPath() throws {
        let cwd = directory.path("cwd")
        try ConfigFixture.write(into: cwd)
        let found = try ConfigurationLoader.locate(explicitPath: "/explicit/Config.plist",
                                                   environment: ["MI_CONFIG": "/env/Config.plist"],
                                                   currentDirectory: cwd)
        XCTAssertEqual(found.path, "/explicit/Config.plist")
    }

    func testLocateResolvesARelativeExplicitPathAgainstTheCurrentDirectory() throws {
        let cwd = directory.path("cwd")
        let found = try ConfigurationLoader.locate(explicitPath: "conf/mi.plist", environment: [:], currentDirectory: cwd)
        XCTAssertEqual(found.path, cwd.appendingPathComponent("conf/mi.plist").path)
    }

    func testLocateUsesMIConfigWhenNoExplicitPath() throws {
        let cwd = directory.path("cwd")
        try ConfigFixture.write(into: cwd)
        let found = try ConfigurationLoader.locate(explicitPath: nil, environment: ["MI_CONFIG": "/env/Config.plist"],
                                                   currentDirectory: cwd)
        XCTAssertEqual(found.path, "/env/Config.plist")
    }

    func testLocateIgnoresAnEmptyMIConfig() throws {
        let cwd = directory.path("cwd")
        try ConfigFixture.write(into: cwd)
        let found = try ConfigurationLoader.locate(explicitPath: nil, environment: ["MI_CONFIG": ""], currentDirectory: cwd)
        XCTAssertEqual(found.path, cwd.appendingPathComponent("Config.plist").path)
    }

    func testLocateFallsBackToConfigPlistInTheCurrentDirectory() throws {
        let cwd = directory.path("cwd")
        let xdg = directory.path("xdg")
        try ConfigFixture.write(into: cwd)
        try ConfigFixture.write(into: xdg.appendingPathComponent("mi"))
        let found = try ConfigurationLoader.locate(explicitPath: nil, environment: ["XDG_CONFIG_HOME": xdg.path],
                                                   currentDirectory: cwd)
        XCTAssertEqual(found.path, cwd.appendingPathComponent("Config.plist").path)
    }

    func testLocateFallsBackToXDGConfigHomeWhenTheCurrentDirectoryHasNone() throws {
        let cwd = directory.path("cwd")
        let xdg = directory.path("xdg")
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        try ConfigFixture.write(into: xdg.appendingPathComponent("mi"))
        let found = try ConfigurationLoader.locate(explicitPath: nil, environment: ["XDG_CONFIG_HOME": xdg.path],
                                                   currentDirectory: cwd)
        XCTAssertEqual(found.path, xdg.appendingPathComponent("mi/Config.plist").path)
    }

    func testLocateFallsBackToDotConfigUnderHome() throws {
        let cwd = directory.path("cwd")
        let home = directory.path("home")
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        try ConfigFixture.write(into: home.appendingPathComponent(".config/mi"))
        let found = try ConfigurationLoader.locate(explicitPath: nil, environment: ["HOME": home.path],
                                                   currentDirectory: cwd)
        XCTAssertEqual(found.path, home.appendingPathComponent(".config/mi/Config.plist").path)
    }

    func testLocateThrowsListingThePlacesItLookedWhenNothingIsFound() throws {
        let cwd = directory.path("cwd")
        let home = directory.path("home")
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        let etc = "/etc/mi/Config.plist"
        if Files.exists(URL(fileURLWithPath: etc)) {
            // A machine-wide configuration is the last resort.
            XCTAssertEqual(try ConfigurationLoader.locate(explicitPath: nil, environment: ["HOME": home.path],
                                                          currentDirectory: cwd).path, etc)
            return
        }
        XCTAssertThrowsError(try ConfigurationLoader.locate(explicitPath: nil, environment: ["HOME": home.path],
                                                            currentDirectory: cwd)) { error in
            let message = error.localizedDescription
            XCTAssertTrue(message.contains(cwd.appendingPathComponent("Config.plist").path), message)
            XCTAssertTrue(message.contains(home.appendingPathComponent(".config/mi/Config.plist").path), message)
            XCTAssertTrue(message.contains(etc), message)
            XCTAssertTrue(message.contains("MI_CONFIG"), message)
        }
    }

    // MARK: - Server URLs

    private func server(_ edits: [ConfigEdit] = []) throws -> Configuration.Server {
        try ConfigurationLoader.load(from: try ConfigFixture.write(into: directory.url, edits)).server
    }

    func testTemplateListURLJoinsSchemeDomainPortAndPath() throws {
        let url = try server().url(.templateList)
        XCTAssertEqual(url?.absoluteString, "https://mi.example.com:8443/api/v1/templates")
    }

    func testEveryEndpointHasItsDefaultPath() throws {
        let server = try self.server()
        XCTAssertEqual(server.url(.session)?.absoluteString, "https://mi.example.com:8443/api/v1/session")
        XCTAssertEqual(server.url(.submit)?.absoluteString, "https://mi.example.com:8443/api/v1/submissions")
        XCTAssertEqual(server.url(.health)?.absoluteString, "https://mi.example.com:8443/health")
        XCTAssertEqual(server.url(.template, id: "pump-inspection")?.absoluteString,
                       "https://mi.example.com:8443/api/v1/templates/pump-inspection")
        XCTAssertEqual(server.url(.submission, id: "0A1B")?.absoluteString,
                       "https://mi.example.com:8443/api/v1/submissions/0A1B")
    }

    func testTemplateIdIsPercentEncodedIncludingSlashes() throws {
        let url = try server().url(.template, id: "a b/../c?d#e")
        XCTAssertEqual(url?.absoluteString, "https://mi.example.com:8443/api/v1/templates/a%20b%2F..%2Fc%3Fd%23e")
        XCTAssertEqual(url?.host, "mi.example.com")
    }

    func testHTTPSchemeAndOtherPortAreUsed() throws {
        let url = try server([.set("Server.Scheme", "http"), .set("Server.Port", 8080), .set("Server.Domain", "localhost")])
            .url(.health)
        XCTAssertEqual(url?.absoluteString, "http://localhost:8080/health")
    }

    func testCustomPathsAreHonoured() throws {
        let server = try self.server([
            .set("Server.Paths.TemplateList", "/mi/forms"),
            .set("Server.Paths.Template", "/mi/forms/{id}/json"),
            .set("Server.Paths.Session", "/auth/token"),
            .set("Server.Paths.Submit", "/mi/uploads"),
        ])
        XCTAssertEqual(server.url(.templateList)?.absoluteString, "https://mi.example.com:8443/mi/forms")
        XCTAssertEqual(server.url(.template, id: "x y")?.absoluteString, "https://mi.example.com:8443/mi/forms/x%20y/json")
        XCTAssertEqual(server.url(.session)?.absoluteString, "https://mi.example.com:8443/auth/token")
        XCTAssertEqual(server.url(.submit)?.absoluteString, "https://mi.example.com:8443/mi/uploads")
        XCTAssertEqual(server.url(.submission, id: "42")?.absoluteString, "https://mi.example.com:8443/mi/uploads/42")
    }

    func testPathsNotGivenKeepTheirDefaults() throws {
        let server = try self.server([.remove("Server.Paths")])
        XCTAssertEqual(server.paths.templateList, "/api/v1/templates")
        XCTAssertEqual(server.paths.template, "/api/v1/templates/{id}")
        XCTAssertEqual(server.paths.session, "/api/v1/session")
        XCTAssertEqual(server.paths.submit, "/api/v1/submissions")
    }

    // MARK: - TemplateKeys in Config.plist

    func testTemplateKeysAreReadFromThePlist() throws {
        let report = try check([.set("TemplateKeys", ["maxAnswers": "Max", "noCells": "blocked", "multipleChoice": "MC"])])
        let keys = try XCTUnwrap(report.configuration?.templateKeys)
        XCTAssertEqual(keys[.maxAnswers], "Max")
        XCTAssertEqual(keys[.noCells], "blocked")
        XCTAssertEqual(keys[.multipleChoice], "MC")
        XCTAssertEqual(keys[.options], "options")
    }

    func testTwoTemplateKeysWithTheSameNameAreAnError() throws {
        // `max` is already the numeric question's upper bound.
        let report = try check([.set("TemplateKeys", ["maxAnswers": "max"])])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1, "\(report.errors)")
        XCTAssertEqual(report.errors.first?.keyPath, "TemplateKeys.max")
        XCTAssertTrue(report.errors.first?.message.contains("\"max\"") == true, "\(report.errors)")
    }

    func testTwoRenamedTemplateKeysWithTheSameNameAreAnError() throws {
        let report = try check([.set("TemplateKeys", ["rows": "lines", "columns": "lines"])])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1, "\(report.errors)")
        XCTAssertTrue(["TemplateKeys.rows", "TemplateKeys.columns"].contains(report.errors.first?.keyPath ?? ""))
    }

    func testTwoQuestionTypesWithTheSameNameAreAnError() throws {
        let report = try check([.set("TemplateKeys", ["trueFalse": "YN", "shortAnswer": "YN"])])
        XCTAssertNil(report.configuration)
        XCTAssertEqual(report.errors.count, 1, "\(report.errors)")
    }

    func testSameNameInDifferentScopesIsNotAConflict() throws {
        // `title` is a template key, `text` a question key: they never meet in one object.
        let report = try check([.set("TemplateKeys", ["title": "name", "text": "name"])])
        XCTAssertEqual(report.errors, [])
        XCTAssertEqual(report.configuration?.templateKeys[.title], "name")
    }

    // MARK: - Helpers

    private func assertEquivalent(_ a: Configuration, _ b: Configuration, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.server.scheme, b.server.scheme, file: file, line: line)
        XCTAssertEqual(a.server.domain, b.server.domain, file: file, line: line)
        XCTAssertEqual(a.server.port, b.server.port, file: file, line: line)
        XCTAssertEqual(a.server.paths.templateList, b.server.paths.templateList, file: file, line: line)
        XCTAssertEqual(a.server.paths.template, b.server.paths.template, file: file, line: line)
        XCTAssertEqual(a.server.paths.session, b.server.paths.session, file: file, line: line)
        XCTAssertEqual(a.server.paths.submit, b.server.paths.submit, file: file, line: line)
        XCTAssertEqual(a.server.caFile, b.server.caFile, file: file, line: line)
        XCTAssertEqual(a.server.listen, b.server.listen, file: file, line: line)
        XCTAssertEqual(a.server.maxUploadBytes, b.server.maxUploadBytes, file: file, line: line)
        XCTAssertEqual(a.server.tokenMinutes, b.server.tokenMinutes, file: file, line: line)
        XCTAssertEqual(a.ldap.url, b.ldap.url, file: file, line: line)
        XCTAssertEqual(a.ldap.startTLS, b.ldap.startTLS, file: file, line: line)
        XCTAssertEqual(a.ldap.caFile, b.ldap.caFile, file: file, line: line)
        XCTAssertEqual(a.ldap.baseDN, b.ldap.baseDN, file: file, line: line)
        XCTAssertEqual(a.ldap.userFilter, b.ldap.userFilter, file: file, line: line)
        XCTAssertEqual(a.ldap.bindDN, b.ldap.bindDN, file: file, line: line)
        XCTAssertEqual(a.ldap.bindPasswordFile, b.ldap.bindPasswordFile, file: file, line: line)
        XCTAssertEqual(a.ldap.foremanGroup, b.ldap.foremanGroup, file: file, line: line)
        XCTAssertEqual(a.ldap.groupMemberAttribute, b.ldap.groupMemberAttribute, file: file, line: line)
        XCTAssertEqual(a.ldap.timeoutSeconds, b.ldap.timeoutSeconds, file: file, line: line)
        XCTAssertEqual(a.documents.lastPathComponent, b.documents.lastPathComponent, file: file, line: line)
        XCTAssertEqual(a.expiryDays, b.expiryDays, file: file, line: line)
        XCTAssertEqual(a.reminderDays, b.reminderDays, file: file, line: line)
        XCTAssertEqual(a.templateKeys, b.templateKeys, file: file, line: line)
    }
}
