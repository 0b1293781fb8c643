package dev.sqlagent.config;

/** A configuration value is missing or wrong; the message names the key and what is expected. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
