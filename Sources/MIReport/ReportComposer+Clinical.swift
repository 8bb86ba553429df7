import Foundation
import MIKit

/// The consent a form's respondent accepted and the scores of its answers.
extension ReportComposer {
    /// The template's consent text and who accepted it, when, and which text (its SHA-256).
    func consentSection() {
        guard let text = form.template.consent else { return }
        keepTogether {
            paragraph("Consent", style: .heading, after: 4)
            paragraph(text, style: .body, indent: Self.indent, after: 4)
            if let acceptance = form.consent {
                let matches = acceptance.sha256 == form.template.consentDigest
                field("Accepted:", "by \(acceptance.by) on \(dates.string(from: acceptance.at))",
                      indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 1)
                field("SHA-256:", acceptance.sha256 + (matches ? "" : " — not the digest of this text"),
                      valueStyle: .note, indent: Self.indent, labelWidth: Self.answerLabelWidth, after: 3)
            } else {
                field("Accepted:", "not accepted", valueStyle: .note, indent: Self.indent,
                      labelWidth: Self.answerLabelWidth, after: 3)
            }
        }
        space(10)
    }

    /// The scorer's values, its per-item results and its note.
    func scoresSection() {
        guard let sheet = form.scores else { return }
        keepTogether {
            paragraph("Scores (\(sheet.scoring.rawValue))", style: .heading, after: 4)
            if sheet.values.isEmpty { paragraph("no scores", style: .note, indent: Self.indent, after: 2) }
            for entry in sheet.values {
                field(entry.key, entry.value.display, indent: Self.indent, labelWidth: 160, after: 1)
            }
            space(3)
        }
        for item in sheet.items {
            keepTogether {
                field(item.question, item.summary, valueStyle: .cell, labelStyle: .cell,
                      indent: Self.indent, labelWidth: 160, after: 1)
            }
        }
        if let note = sheet.note { paragraph(note, style: .note, indent: Self.indent, after: 3) }
        space(10)
    }
}
