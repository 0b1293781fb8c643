package dev.sqlagent.retrieval;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * bge-small-en-v1.5 (quantised), the one instance of this JVM, for table retrieval and question similarity
 * alike: the same ONNX model and tokenizer {@link BgeSmallEnV15QuantizedEmbeddingModel} ships, in a session
 * that runs each text on one thread. A question is a few dozen tokens: one thread embeds it as fast as
 * onnxruntime's default of a thread per core (p50 about 5.3 ms either way on the 2-core machine), and leaves the
 * other cores to the work that runs beside it (the question's stored-value lookups, the
 * database). Many texts at once (an index build) are embedded side by side, one per core. The vectors are
 * the same as the default session's. BLOCKING: call it from a worker.
 */
public final class BgeModel {

  private static volatile EmbeddingModel instance;

  private BgeModel() {}

  /** The model, loaded on first use (about 34 MB of ONNX from the classpath; BLOCKING). */
  public static EmbeddingModel get() {
    EmbeddingModel m = instance;
    if (m == null) {
      synchronized (BgeModel.class) {
        if (instance == null) instance = new OneThreadEach(load(), bulkExecutor());
        m = instance;
      }
    }
    return m;
  }

  private static OnnxBertBiEncoder load() {
    try (InputStream model = resource("bge-small-en-v1.5-q.onnx");
        InputStream tokenizer = resource("bge-small-en-v1.5-q-tokenizer.json")) {
      OrtEnvironment env = OrtEnvironment.getEnvironment();
      OrtSession.SessionOptions options = new OrtSession.SessionOptions();
      options.setIntraOpNumThreads(1);
      return new OnnxBertBiEncoder(env, env.createSession(model.readAllBytes(), options), tokenizer, PoolingMode.CLS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (OrtException e) {
      throw new IllegalStateException("the embedding model could not be loaded: " + e.getMessage(), e);
    }
  }

  private static InputStream resource(String name) {
    InputStream in = BgeSmallEnV15QuantizedEmbeddingModel.class.getClassLoader().getResourceAsStream(name);
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

    OneThreadEach(OnnxBertBiEncoder encoder, Executor bulk) {
      super(bulk);
      this.encoder = encoder;
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
