import ArgumentParser
import Foundation
import MIKit

/// `--from`, `--to` and `--user`: which completed forms `mi stats` and `mi export` cover, read
/// by MIKit's one day parser into `StatisticsFilters`.
struct FormSelectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Forms submitted on or after this UTC day (YYYY-MM-DD) or ISO 8601 time.", valueName: "day"))
    var from: String?

    @Option(help: ArgumentHelp("Forms submitted on or before this UTC day (YYYY-MM-DD) or up to this ISO 8601 time.", valueName: "day"))
    var to: String?

    @Option(help: ArgumentHelp("Only this technician's forms (foremen; a technician gets only their own).", valueName: "user"))
    var user: String?

    /// The filters these options ask for, with the command's own `version` and `groupBy`.
    func filters(version: Int? = nil, groupBy: String? = nil) throws -> StatisticsFilters {
        let dates = try StatisticsFilters.dates(from: from, to: to, names: ("--from", "--to"))
        return StatisticsFilters(from: dates.from, to: dates.to, user: user, version: version, groupBy: groupBy)
    }
}
