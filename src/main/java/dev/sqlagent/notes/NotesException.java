package dev.sqlagent.notes;

/**
 * A notes file that cannot be used. The message is meant for the person who wrote the file: it names the
 * file, the line (when there is one) and what is wrong, e.g. {@code notes.yaml line 7: term 'churn' has
 * no 'means'}. It never carries a parser's class name.
 */
public final class NotesException extends RuntimeException {

  private final String file;
  private final int line;

  NotesException(String file, int line, String problem) {
    super(file + (line > 0 ? " line " + line : "") + ": " + problem);
    this.file = file;
    this.line = line;
  }

  /** The file as it was given. */
  public String file() {
    return file;
  }

  /** The 1-based line of the problem; 0 when it concerns the whole file (missing, unreadable). */
  public int line() {
    return line;
  }
}
