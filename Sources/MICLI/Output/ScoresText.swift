import Foundation
import MIKit

/// The Scores section of `mi review`: the scorer's values, the items it judged or left to an
/// examiner, and its note, recomputed from the answers shown above it.
enum ScoresText {
    static func lines(_ sheet: ScoreSheet) -> [String] {
        var lines = ["Scores (\(sheet.scoring.rawValue)):"]
        let width = sheet.values.map(\.key.count).max() ?? 0
        for entry in sheet.values {
            lines.append("  " + entry.key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + entry.value.display)
        }
        if !sheet.items.isEmpty {
            lines.append("")
            var table = TableRenderer(["ITEM", "RESULT"], wrapping: [1])
            for item in sheet.items { table.add([item.question, item.summary]) }
            lines.append(table.render())
        }
        if let note = sheet.note { lines.append(note) }
        return lines
    }
}
