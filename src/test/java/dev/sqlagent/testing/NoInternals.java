package dev.sqlagent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;

/** Issue 17, item 3: no response anywhere names a Java class, a library's internals or a stack frame. */
public final class NoInternals {
  private NoInternals() {}

  static final Pattern JAVA_NAME = Pattern.compile("(java|javax|io\\.vertx|tools\\.jackson|com\\.fasterxml|io\\.netty|"
      + "io\\.modelcontextprotocol|reactor|dev\\.sqlagent)\\.[a-z]|Exception\\b|\\$[A-Z]|\\bat [a-z]+\\.|Cannot invoke");

  public static void assertNone(String body) {
    assertThat(body != null && JAVA_NAME.matcher(body).find()).as("a Java name in: %s", body).isFalse();
  }
}
