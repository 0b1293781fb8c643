package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SecretsTest {

  private final Secrets secrets = new Secrets(List.of("sk-abc", "sk-abcdef-long"));

  @Test
  void keysAreMaskedLongestFirst() {
    assertThat(secrets.redact("key sk-abcdef-long and sk-abc")).isEqualTo("key **** and ****");
  }

  @Test
  void credentialsInUrlsAndBearerHeadersAreMasked() {
    assertThat(secrets.redact("cannot reach https://user:pw@host/v1?key=zzz&x=1"))
        .isEqualTo("cannot reach https://****@host/v1?key=****&x=1");
    assertThat(secrets.redact("Authorization: Bearer abcdefghijklmnop")).isEqualTo("Authorization: Bearer ****");
  }

  @Test
  void nothingToMask() {
    assertThat(new Secrets(List.of()).redact("plain text")).isEqualTo("plain text");
    assertThat(secrets.redact(null)).isNull();
  }
}
