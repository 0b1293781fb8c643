package dev.sqlagent.retrieval;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * all-MiniLM-L6-v2 (quantised), the one instance of this JVM, for table retrieval and question similarity
 * alike: the same ONNX model and tokenizer {@link AllMiniLmL6V2QuantizedEmbeddingModel} ships, in a session
 * that runs each text on one thread. Six layers, and no instruction before a question: a question embeds in well
 * under half the time bge-small-en-v1.5 took on a 2-core machine without VNNI, and more of the tables questions
 * need are found among 1,000 (as many among the demo's top 5; {@code Retrieval1000Benchmark},
 * {@code RetrievalBenchmark}). One thread embeds a
 * question as fast as onnxruntime's default of a thread per core, and leaves the other cores to the work that runs
 * beside it (the question's stored-value lookups, the database). Many texts at once (an index build) are embedded
 * side by side, one per core. The vectors are the same as the default session's. One text asked for again while it
 * is being embedded waits for that embedding rather than making its own: a question a user asks is embedded for the
 * verified library and for retrieval at the same moment, and on two cores the second embedding would slow both.
 * BLOCKING: call it from a worker.
 */
public final class MiniLmModel {

  private static volatile EmbeddingModel instance;

  private MiniLmModel() {}

  /** The model, loaded on first use (about 23 MB of ONNX from the classpath; BLOCKING). */
  public static EmbeddingModel get() {
    EmbeddingModel m = instance;
    if (m == null) {
      synchronized (MiniLmModel.class) {
        if (instance == null) instance = new OneThreadEach(load(), bulkExecutor());
        m = instance;
      }
    }
    return m;
  }

  /** How many single texts the model itself has embedded in this JVM (a shared embedding is not counted). */
  public static long textsEmbedded() {
    return get() instanceof OneThreadEach m ? m.made.get() : 0;
  }

  private static OnnxBertBiEncoder load() {
    try (InputStream model = resource("all-minilm-l6-v2-q.onnx");
        InputStream tokenizer = resource("all-minilm-l6-v2-q-tokenizer.json")) {
      OrtEnvironment env = OrtEnvironment.getEnvironment();
      OrtSession.SessionOptions options = new OrtSession.SessionOptions();
      options.setIntraOpNumThreads(1);
      return new OnnxBertBiEncoder(env, env.createSession(model.readAllBytes(), options), tokenizer, PoolingMode.MEAN);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (OrtException e) {
      throw new IllegalStateException("the embedding model could not be loaded: " + e.getMessage(), e);
    }
  }

  private static InputStream resource(String name) {
    InputStream in = AllMiniLmL6V2QuantizedEmbeddingModel.class.getClassLoader().getResourceAsStream(name);
    if (in == null) throw new IllegalStateException(name + " is not on the classpath");
    return in;
  }

  /** Daemon threads, one per core, that end when idle: several texts at once are embedded side by side. */
  private static Executor bulkExecutor() {
    int cores = Runtime.getRuntime().availableProcessors();
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(cores, cores, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "sql-agent-embedding-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private static final class OneThreadEach extends AbstractInProcessEmbeddingModel {
    private final OnnxBertBiEncoder encoder;
    /** Texts being embedded now, each with the embedding its first caller is making. */
    private final ConcurrentHashMap<String, CompletableFuture<Response<Embedding>>> embedding = new ConcurrentHashMap<>();
    /** Texts embedded one at a time, by the model (not shared). */
    private final AtomicLong made = new AtomicLong();

    OneThreadEach(OnnxBertBiEncoder encoder, Executor bulk) {
      super(bulk);
      this.encoder = encoder;
    }

    @Override
    public Response<Embedding> embed(String text) {
      CompletableFuture<Response<Embedding>> mine = new CompletableFuture<>();
      CompletableFuture<Response<Embedding>> first = embedding.putIfAbsent(text, mine);
      if (first != null) {
        try {
          Response<Embedding> shared = first.join();
          // A vector of its own: a caller may keep it (the verified library does).
          return Response.from(Embedding.from(shared.content().vector().clone()), shared.tokenUsage());
        } catch (CompletionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : e;
        }
      }
      try {
        made.incrementAndGet();
        Response<Embedding> r = super.embed(text);
        mine.complete(r);
        return r;
      } catch (RuntimeException | Error e) {
        mine.completeExceptionally(e);
        throw e;
      } finally {
        embedding.remove(text, mine);
      }
    }

    @Override
    protected OnnxBertBiEncoder model() {
      return encoder;
    }

    @Override
    protected Integer knownDimension() {
      return 384;
    }
  }
}
