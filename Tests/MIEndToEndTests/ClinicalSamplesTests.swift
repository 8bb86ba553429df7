import Foundation
import MIKit
import TestSupport
import XCTest

/// The three study questionnaires shipped in Samples/templates go the whole way like any other
/// template: downloaded from the real mi-server with their pictures, filled (consent accepted),
/// printed, exported with their score columns, uploaded, and refused a second time.
final class ClinicalSamplesTests: XCTestCase {
    static let medicalHistory = #"""
        {"nameQuestion": "Lucía Ramírez", "sexQuestion": ["Mujer"], "ageQuestion": 34, "weightQuestion": 61.5,
         "heightQuestion": 164, "residenceQuestion": ["Urbana"], "occupationQuestion": ["Empleo asalariado"],
         "OccupationQuestion3": {"comment": "no hace falta"}, "pathologiesQuestion": ["Diabetes", "Hipertensión arterial"],
         "mentalPathologiesQuestion": ["Ninguna"], "personalPathologiesQuestion": ["COVID-19"], "vaccinationQuestion": true,
         "alcoholQuestion": ["Social (de una a cuatro veces al mes)"], "tobaccoQuestion": ["No fumo"],
         "drugsQuestion": ["Ninguna"], "drugsFrecuencyQuestion": ["No consumo"], "physicalActivityQuestion": ["Moderadamente activo"],
         "typePhysicalActivityQuestion": ["Caminar", "Yoga o pilates"], "hobbieQuestion": "leer, el huerto",
         "studyQuestion": ["Licenciatura"], "transportationQuestion": ["Transporte público", "Bicicleta"],
         "feedingQuestion": 3, "typeFoodQuestion": ["Casera", "Balanceada"]}
        """#
    // Vigorous 3 × 40 min, moderate 2 × 30, walking 5 × 30: 960 + 240 + 495 = 1,695 MET-min → high.
    static let ipaq = #"""
        {"firstQuestionVigorous": 3, "secondQuestionVigorous": 40, "thirdQuestionModerate": 2, "fourthQuestionModerate": 30,
         "fifthQuestionWalk": 5, "sixthQuestionWalk": 30, "seventhQuestionSedentary": 420}
        """#

    static func mmse(now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: now)
        let days = ["domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"]
        return """
            {"timeQuestionWeekDay": "\(days[(parts.weekday ?? 1) - 1])", "timeQuestionYear": \(parts.year ?? 0),
             "timeQuestionMonth": "\(parts.month ?? 0)", "timeQuestionDay": \(parts.day ?? 0),
             "spaceQuestionCountry": "México", "spaceQuestionArea": "Jalisco", "spaceQuestionLocality": "Zapopan",
             "concentrationQuestionOne": 93, "concentrationQuestionTwo": 86, "concentrationQuestionThree": 79,
             "concentrationQuestionFour": 72, "concentrationQuestionFive": 65,
             "watchImageQuestion": "Reloj", "pencilImageQuestion": "una pluma",
             "letterQuestion": "Querida tía: llegamos bien.", "memoryQuestion": 65}
            """
    }

    func testTheStudyQuestionnairesGoTheWholeWay() throws {
        let sandbox = try Sandbox()
        let templates = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let samples = sandbox.repository.appendingPathComponent("Samples/templates")
        for name in ["mmse.json", "ipaq.json", "medical-history.json", "mmse"] {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: templates.appendingPathComponent(name))
        }
        let server = try RunningServer(sandbox)
        defer { withExtendedLifetime(server) {} }
        let listed = try sandbox.run(["templates"])
        XCTAssertEqual(listed.status, 0, listed.output)
        for id in ["mmse", "ipaq", "medical-history"] { XCTAssertTrue(listed.output.contains(id), listed.output) }
        for picture in ["reloj.png", "boligrafo.png"] {
            XCTAssertEqual(try Data(contentsOf: sandbox.documents.appendingPathComponent(".templates/mmse/\(picture)")),
                           try Data(contentsOf: samples.appendingPathComponent("mmse/\(picture)")), picture)
        }

        // TZ=UTC: the MMSE's date questions are judged in the zone the form was started in.
        let answers: [(String, String)] = [("medical-history", Self.medicalHistory), ("ipaq", Self.ipaq),
                                           ("mmse", Self.mmse(now: Date()))]
        for (template, file) in answers {
            let created = try sandbox.run(["new", template, "--name", "\(template)-1"], environment: ["TZ": "UTC"])
            XCTAssertEqual(created.status, 0, created.output)
            let refused = try sandbox.run(["answer", "\(template)-1", "--file", "-"], stdin: file)
            XCTAssertEqual(refused.status, 65, "no answer before the consent is accepted: \(refused.output)")
            XCTAssertTrue(refused.output.contains("consent"), refused.output)
            let answered = try sandbox.run(["answer", "\(template)-1", "--file", "-", "--accept-consent"], stdin: file)
            XCTAssertEqual(answered.status, 0, "\(template): \(answered.output)")
            let pdf = sandbox.root.appendingPathComponent("\(template).pdf")
            let printed = try sandbox.run(["print", "\(template)-1", "--output", pdf.path])
            XCTAssertEqual(printed.status, 0, "\(template): \(printed.output)")
            XCTAssertEqual(Array(try Data(contentsOf: pdf).prefix(5)), Array("%PDF-".utf8))
            XCTAssertEqual(try sandbox.run(["submit", "\(template)-1"]).status, 0, template)
            let second = try sandbox.run(["new", template])
            XCTAssertEqual(second.status, 65, "once per person: \(second.output)")
            XCTAssertTrue(second.output.contains("\(template)-1"), "the refusal names the first form: \(second.output)")
        }
        let mmse = try sandbox.run(["review", "mmse-1", "--json"])
        let review = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(mmse.stdout.utf8)) as? [String: Any], mmse.output)
        let scores = try XCTUnwrap(review["scores"] as? [String: Any], mmse.stdout)
        XCTAssertEqual(scores["mmse.automatic"] as? Double, 11, mmse.stdout)
        XCTAssertEqual(scores["mmse.automaticMax"] as? Double, 11)

        // The foreman's export: one row each, the IPAQ's with its score columns.
        for template in ["medical-history", "ipaq", "mmse"] {
            let output = sandbox.root.appendingPathComponent("\(template).zip")
            let exported = try sandbox.run(["export", template, "--output", output.path], as: "fiona")
            XCTAssertEqual(exported.status, 0, exported.output)
            let zip = try ZipArchiveReader(Array(try Data(contentsOf: output)))
            let csv = String(decoding: try XCTUnwrap(zip.entry("\(template).csv")).data, as: UTF8.self)
            let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, 2, "\(template): a header and one row\n\(csv)")
            if template == "ipaq" {
                for key in ScoreSheet.keys(of: .ipaqShort) { XCTAssertTrue(lines[0].contains(key), "\(key) in \(lines[0])") }
                XCTAssertTrue(lines[1].contains(",1695,"), lines[1])
                XCTAssertTrue(lines[1].contains(",high,"), lines[1])
            }
            if template == "medical-history" { XCTAssertTrue(lines[1].contains("Lucía Ramírez"), lines[1]) }
        }

        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.output.contains("3 forms uploaded"), upload.output)
        // Remembered from the upload: still refused with no local form and no server.
        withExtendedLifetime(server) {}
        server.process.terminate()
        server.process.waitUntilExit()
        let offline = try sandbox.run(["new", "ipaq"])
        XCTAssertEqual(offline.status, 65, offline.output)
    }
}
