/** Language helpers: writing direction and display names. */

// Languages written right to left (ISO 639-1/-3 primary subtags).
const RTL = new Set(["ar", "ur", "fa", "he", "iw", "ps", "sd", "ug", "yi", "dv", "ckb", "ara", "urd"]);

/** Languages the assistant supports (field notes), offered in the picker. */
export const SUPPORTED_LANGUAGES = [
  "en", "es", "fr", "de", "it", "pt", "ar", "zh", "hi", "ur", "ja", "ko", "ru", "tr",
] as const;

/** Whether text in `language` is written right to left. */
export function isRtl(language: string | null | undefined): boolean {
  if (!language) return false;
  return RTL.has(language.toLowerCase().split("-")[0] ?? "");
}

/**
 * The `dir` attribute for text in `language`: explicit for known RTL
 * languages, `auto` otherwise so untagged Arabic still renders right to left.
 */
export function textDir(language: string | null | undefined): "rtl" | "auto" {
  return isRtl(language) ? "rtl" : "auto";
}

/** "Arabic" for "ar" in the page's locale; the code itself when unknown. */
export function languageName(code: string, locale = "en"): string {
  try {
    const names = new Intl.DisplayNames([locale], { type: "language" });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
