package dev.sqlagent.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * How a sensitive column's values are shown to whoever may not see them: {@link #REDACT} (the default) replaces each
 * with {@code [redacted]}; {@link #HASH} with {@code #} and the first 12 hex digits of the SHA-256 of its text (the
 * same value, the same mask, so counts and joins still line up; a value from a small set can be guessed back from it);
 * {@link #LAST4} with {@code ****} and its last four characters. NULL stays NULL.
 */
public enum Mask {
  REDACT, HASH, LAST4;

  public static final String REDACTED = "[redacted]";

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code redact}, {@code hash} or {@code last4} (the notes file has checked it); anything else: redact. */
  public static Mask of(String name) {
    if (name == null) return REDACT;
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "hash" -> HASH;
      case "last4" -> LAST4;
      default -> REDACT;
    };
  }

  /** The masked form of one value (any JSON value; NULL stays NULL). */
  public Object apply(Object value) {
    if (value == null) return null;
    String text = value.toString();
    return switch (this) {
      case REDACT -> REDACTED;
      case HASH -> "#" + sha256(text).substring(0, 12);
      case LAST4 -> text.codePointCount(0, text.length()) <= 4 ? "****"
          : "****" + text.substring(text.offsetByCodePoints(text.length(), -4));
    };
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
