import { SUPPORTED_LANGUAGES, languageName } from "../lib/language";

export interface LanguagePickerProps {
  language: string | null;
  sessionLanguage: string | null;
  onChange: (language: string | null) => void;
}

/** Which language new messages are in; "Auto" lets the server detect it. */
export function LanguagePicker({ language, sessionLanguage, onChange }: LanguagePickerProps) {
  return (
    <div className="language-picker">
      <label htmlFor="language">Language</label>
      <select
        id="language"
        value={language ?? ""}
        onChange={(e) => onChange(e.target.value || null)}
      >
        <option value="">Auto-detect</option>
        {SUPPORTED_LANGUAGES.map((code) => (
          <option key={code} value={code}>
            {languageName(code)} ({code})
          </option>
        ))}
      </select>
      {sessionLanguage ? (
        <span className="hint" data-testid="session-language">
          conversation: {languageName(sessionLanguage)}
        </span>
      ) : null}
    </div>
  );
}
