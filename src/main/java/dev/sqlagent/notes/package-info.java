/**
 * What a person knows about their database that its COMMENTs do not say: the notes file
 * ({@code SQLAGENT_NOTES}, YAML or JSON), read by {@link dev.sqlagent.notes.NotesFile}, held as
 * {@link dev.sqlagent.notes.Notes} and checked against the target through
 * {@link dev.sqlagent.notes.KnownTables}. Nothing here knows the demo's tables; the demo's notes are the
 * resource {@code /demo/shop-notes.yaml}. The format is documented in {@code docs/notes-file.md}.
 */
package dev.sqlagent.notes;
