package dev.sqlagent.retrieval;

import java.util.Collection;
import java.util.Map;

/**
 * A second-level, persistent cache of document embeddings, keyed by the model's name and the SHA-256 of the
 * exact text embedded. BLOCKING (it talks to a database): call it from a worker, as the index build does.
 * Failures are the caller's to tolerate: a cache that cannot be read means embedding again, not no retrieval.
 */
public interface EmbeddingStore {

  /** The vectors stored for those hashes (missing hashes are simply absent), in one round trip. */
  Map<String, float[]> load(String model, Collection<String> sha256s) throws Exception;

  /** Stores new vectors; an existing (model, hash) row is left as it is. Returns how many rows were new. */
  int save(String model, Map<String, float[]> vectors) throws Exception;

  /** No persistent cache: every JVM embeds its documents once. */
  EmbeddingStore NONE = new EmbeddingStore() {
    @Override
    public Map<String, float[]> load(String model, Collection<String> sha256s) {
      return Map.of();
    }

    @Override
    public int save(String model, Map<String, float[]> vectors) {
      return 0;
    }
  };
}
