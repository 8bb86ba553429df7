import Foundation
import MIKit

/// The office's language switch for a template in several languages: a link `?lang=<language>`
/// to each, the one shown marked. The page is drawn through `Form.shown(in:)` /
/// `Template.localized(to:)`; answers, names and exports do not depend on it.
enum LanguageSwitch {
    /// One entry per language (`name`, `url`, `current`); empty for a template in one language.
    /// `query` (`name=value&…&`, empty by default) keeps the page's other parameters.
    static func values(_ template: Template, shown: String?, query: String = "") -> [[String: Any]] {
        let languages = template.languages
        guard languages.count > 1 else { return [] }
        let current = shown ?? template.defaultLanguage ?? languages[0]
        return languages.map { language in
            ["name": language, "url": "?" + query + "lang=" + FormQuery.encoded(language), "current": language == current]
        }
    }
}
