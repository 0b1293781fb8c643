package dev.sqlagent.retrieval;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The embedding cache in the state store's {@code embedding_cache} table, through the state store's shared owner
 * pool: one SELECT for every hash, one batched INSERT per embedded batch. The index build runs on a worker and
 * calls it as an {@link EmbeddingStore}, waiting there (never on an event loop) for the reactive result.
 */
public final class EmbeddingRepository implements EmbeddingStore {

  // array_to_string: one plain text column parsed here, without boxed Float[] (measured about as fast: ~0.5-1 s
  // for 1,000 vectors of 384 on a busy 2-core machine). PostgreSQL prints a real exactly (shortest round-trip
  // form), so the vector read back is the vector stored.
  private static final String LOAD = "SELECT document_sha256, array_to_string(vector, ',') FROM embedding_cache"
      + " WHERE model = $1 AND document_sha256 = ANY($2)";
  private static final String SAVE = "INSERT INTO embedding_cache (model, document_sha256, vector)"
      + " VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
  /** The longest the index build waits for the cache; past it the documents are embedded again. */
  private static final long WAIT_SECONDS = 60;

  private final Pool pool;

  /** @param pool the state store's shared owner pool */
  public EmbeddingRepository(Pool pool) {
    this.pool = pool;
  }

  /** The vectors stored for those hashes (missing hashes are simply absent). */
  public Future<Map<String, float[]>> find(String model, Collection<String> sha256s) {
    if (sha256s.isEmpty()) return Future.succeededFuture(new HashMap<>());
    return pool.preparedQuery(LOAD).execute(Tuple.of(model, (Object) sha256s.toArray(new String[0]))).map(rows -> {
      Map<String, float[]> found = new HashMap<>();
      for (Row r : rows) found.put(r.getString(0), parse(r.getString(1)));
      return found;
    });
  }

  /** Stores new vectors; an existing (model, hash) row is left as it is. Completes with how many rows were new. */
  public Future<Integer> add(String model, Map<String, float[]> vectors) {
    if (vectors.isEmpty()) return Future.succeededFuture(0);
    List<Tuple> rows = vectors.entrySet().stream().map(e -> {
      Float[] boxed = new Float[e.getValue().length];
      for (int i = 0; i < boxed.length; i++) boxed[i] = e.getValue()[i];
      return Tuple.of(model, e.getKey(), boxed);
    }).toList();
    return pool.preparedQuery(SAVE).executeBatch(rows).map(result -> {
      int added = 0;
      for (var r = result; r != null; r = r.next()) added += Math.max(r.rowCount(), 0);
      return added;
    });
  }

  /** Blocking: from a worker only (the index build's); the pool's I/O stays on its event loop meanwhile. */
  @Override
  public Map<String, float[]> load(String model, Collection<String> sha256s) throws Exception {
    return waitFor(find(model, sha256s));
  }

  /** Blocking: from a worker only (the index build's). */
  @Override
  public int save(String model, Map<String, float[]> vectors) throws Exception {
    return waitFor(add(model, vectors));
  }

  /** Future.await() refuses Vert.x worker threads, so the worker waits on the result as a plain Java future. */
  private static <T> T waitFor(Future<T> result) throws Exception {
    try {
      return result.toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** "0.1,-2.5e-05,..." as floats. */
  static float[] parse(String text) {
    if (text.isEmpty()) return new float[0];
    int n = 1;
    for (int i = 0; i < text.length(); i++) if (text.charAt(i) == ',') n++;
    float[] v = new float[n];
    int start = 0;
    for (int i = 0; i < n; i++) {
      int end = text.indexOf(',', start);
      if (end < 0) end = text.length();
      v[i] = Float.parseFloat(text.substring(start, end));
      start = end + 1;
    }
    return v;
  }
}
