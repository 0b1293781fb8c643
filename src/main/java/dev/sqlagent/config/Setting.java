package dev.sqlagent.config;

/**
 * One setting of the service, declared once in {@link Settings}: what {@link AppConfig} reads and what
 * {@code docs/configuration.md} shows.
 *
 * @param key the environment variable (and properties-file key), {@code SQLAGENT_...}
 * @param fallback the value read when the setting is unset or blank; null: unset means "not given"
 * @param shownDefault the default as the page shows it (Markdown), e.g. {@code `8080`} or "unset: no token"
 * @param meaning what the setting does, for users (Markdown, one table cell: no line breaks)
 */
public record Setting(String key, String fallback, String shownDefault, String meaning) {

  public Setting {
    if (!key.matches("SQLAGENT_[A-Z0-9_]+")) throw new IllegalArgumentException("not a setting's key: " + key);
    if (shownDefault.isBlank() || meaning.isBlank()) throw new IllegalArgumentException(key + ": say its default and meaning");
    if ((shownDefault + meaning).contains("\n")) throw new IllegalArgumentException(key + ": one line each (a table cell)");
  }
}
