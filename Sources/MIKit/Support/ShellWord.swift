import Foundation

/// Commands MI prints for a person to paste (`Fill it with: mi fill 'Pump P-101 north'`): each
/// argument written as one word of the POSIX shell, so the line runs as shown. Every printed
/// `mi …` suggestion that holds a name builds it here.
public enum ShellWord {
    /// Characters no POSIX shell treats specially anywhere in a word.
    private static let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./@%+:,"))

    /// `word` as it is when it holds only letters, digits and `-_./@%+:,` (`pump-7`, `ana/pump-7`);
    /// otherwise, or `always`, in single quotes, each single quote inside written `'\''`
    /// (`'Pump P-101 north'`, `'O'\''Brien'`).
    public static func quoted(_ word: String, always: Bool = false) -> String {
        if !always, !word.isEmpty, word.unicodeScalars.allSatisfy({ plain.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `mi` and `arguments`, each quoted: `mi fill 'Pump P-101 north'`.
    public static func mi(_ arguments: String...) -> String {
        (["mi"] + arguments.map { quoted($0) }).joined(separator: " ")
    }
}
