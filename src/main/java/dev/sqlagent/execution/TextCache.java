package dev.sqlagent.execution;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small cache keyed by a query's exact text, least recently used first out, bounded in entries and in the
 * characters of its keys (a value may hold as much again: a text's tokens, its columns). Texts longer than
 * {@code maxKeyChars} are not kept. Safe for concurrent use.
 */
final class TextCache<V> {
  private final int maxEntries;
  private final int maxKeyChars;
  private final long maxTotalChars;
  private final LinkedHashMap<String, V> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long chars;

  TextCache(int maxEntries, int maxKeyChars, long maxTotalChars) {
    this.maxEntries = maxEntries;
    this.maxKeyChars = maxKeyChars;
    this.maxTotalChars = maxTotalChars;
  }

  synchronized V get(String key) {
    return key == null ? null : entries.get(key);
  }

  synchronized void put(String key, V value) {
    if (key == null || key.length() > maxKeyChars) return;
    if (entries.put(key, value) == null) chars += key.length();
    Iterator<Map.Entry<String, V>> eldest = entries.entrySet().iterator();
    while ((entries.size() > maxEntries || chars > maxTotalChars) && eldest.hasNext()) {
      chars -= eldest.next().getKey().length();
      eldest.remove();
    }
  }

  synchronized void remove(String key) {
    if (key != null && entries.remove(key) != null) chars -= key.length();
  }

  synchronized int size() {
    return entries.size();
  }
}
