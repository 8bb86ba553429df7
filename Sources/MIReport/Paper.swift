/// The paper a report is laid out for.
public enum Paper: Sendable, Equatable {
    case a4, letter

    /// Width and height in PDF points (1/72 inch).
    public var size: (width: Double, height: Double) {
        switch self {
        case .a4: return (595.276, 841.890)
        case .letter: return (612, 792)
        }
    }

    /// Territories whose default paper is US Letter.
    static let letterTerritories: Set<String> = ["US", "CA", "MX", "PH"]

    /// The paper of the user's locale: the first set of `LC_ALL`, `LC_PAPER`, `LANG` (the POSIX
    /// order of precedence) decides; Letter for the territories that use it, A4 otherwise.
    public static func fromLocale(_ env: [String: String]) -> Paper {
        for key in ["LC_ALL", "LC_PAPER", "LANG"] {
            guard let value = env[key], !value.isEmpty else { continue }
            return territory(of: value).map { letterTerritories.contains($0) } == true ? .letter : .a4
        }
        return .a4
    }

    /// `en_US.UTF-8@euro` → `US`; nil for `C`, `POSIX` and names without a territory.
    static func territory(of locale: String) -> String? {
        let name = locale.split(separator: ".", maxSplits: 1).first.map(String.init) ?? locale
        let withoutModifier = name.split(separator: "@", maxSplits: 1).first.map(String.init) ?? name
        let parts = withoutModifier.split(separator: "_")
        guard parts.count >= 2, let territory = parts.last else { return nil }
        return territory.uppercased()
    }
}
