package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private final List<String> events = new ArrayList<>();
  private final SseParser parser = new SseParser(events::add);

  private void feed(String s) {
    parser.feed(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void dataEventsEndAtABlankLine() {
    feed("data: {\"a\":1}\n\ndata: [DONE]\n\n");
    assertThat(events).containsExactly("{\"a\":1}", "[DONE]");
  }

  @Test
  void crlfFramingGivesNoEmptyEvents() {
    feed("data: one\r\n\r\ndata: two\r\n\r\n");
    assertThat(events).containsExactly("one", "two");
  }

  @Test
  void crAloneEndsALine() {
    feed("data: one\r\rdata: two\r\r");
    assertThat(events).containsExactly("one", "two");
  }

  @Test
  void crlfSplitAcrossChunks() {
    feed("data: one\r");
    feed("\n\r");
    feed("\ndata: two\r\n\r\n");
    assertThat(events).containsExactly("one", "two");
  }

  @Test
  void bytesSplitAnywhereEvenInsideACharacter() {
    byte[] all = "data: {\"t\":\"héllo → 世界\"}\n\n".getBytes(StandardCharsets.UTF_8);
    for (byte b : all) parser.feed(new byte[] {b});
    assertThat(events).containsExactly("{\"t\":\"héllo → 世界\"}");
  }

  @Test
  void multiLineDataIsJoinedWithLf() {
    feed("data: first\ndata: second\n\n");
    assertThat(events).containsExactly("first\nsecond");
  }

  @Test
  void commentsAndOtherFieldsAreIgnored() {
    feed(": keep-alive\nevent: message\nid: 7\nretry: 100\ndata:x\n\n: ping\n\n");
    assertThat(events).containsExactly("x");
  }

  @Test
  void onlyOneLeadingSpaceIsDropped() {
    feed("data:  two spaces\n\n");
    assertThat(events).containsExactly(" two spaces");
  }

  @Test
  void aLastEventWithoutItsBlankLineCountsAtTheEnd() {
    feed("data: a\n\ndata: b");
    assertThat(events).containsExactly("a");
    parser.finish();
    assertThat(events).containsExactly("a", "b");
    assertThat(parser.sawAnyData()).isTrue();
  }

  @Test
  void noDataMeansNoEvents() {
    feed("\n\n: only comments\n\n");
    parser.finish();
    assertThat(events).isEmpty();
    assertThat(parser.sawAnyData()).isFalse();
  }
}
