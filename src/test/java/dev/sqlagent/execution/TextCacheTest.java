package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The gate's small caches by query text, and what the static check remembers. */
class TextCacheTest {

  @Test
  void boundedInEntriesAndInCharactersLeastRecentlyUsedFirstOut() {
    TextCache<Integer> cache = new TextCache<>(3, 10, 20);
    cache.put("a", 1);
    cache.put("b", 2);
    cache.put("c", 3);
    assertThat(cache.get("a")).isEqualTo(1); // a is now the most recently used
    cache.put("d", 4);
    assertThat(cache.get("b")).isNull();
    assertThat(cache.size()).isEqualTo(3);

    cache.put("0123456789x", 5); // longer than a key may be
    assertThat(cache.get("0123456789x")).isNull();

    cache.put("0123456789", 6);
    cache.put("abcdefghij", 7); // 20 characters of these two alone: the rest goes
    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.get("0123456789")).isEqualTo(6);
    cache.remove("0123456789");
    cache.put("k", 8);
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void theStaticCheckRemembersPassingVerdictsOnlyAndPerSchema() {
    StaticCheck check = new StaticCheck(TestSchemas.shop(), StaticCheck.Limits.DEFAULT);
    String ok = "SELECT count(*) FROM bills";
    assertThat(check.remembered(ok)).isNull();
    StaticCheck.Verdict first = check.checkAndRemember(ok);
    assertThat(first.passed()).isTrue();
    assertThat(check.remembered(ok)).isSameAs(first);
    assertThat(check.remembered(ok + " ")).as("the exact text only").isNull();

    for (String refused : new String[] {"DELETE FROM bills", "SELECT * FROM nope", "SELECT pg_sleep(1)"}) {
      assertThat(check.checkAndRemember(refused).passed()).isFalse();
      assertThat(check.remembered(refused)).as(refused).isNull();
    }

    StaticCheck reloaded = new StaticCheck(TestSchemas.shop(), StaticCheck.Limits.DEFAULT);
    assertThat(reloaded.remembered(ok)).as("a schema reload starts afresh").isNull();
  }
}
