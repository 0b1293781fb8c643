package dev.sqlagent.retrieval;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.model.output.TokenUsage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  private static Encoders load() {
    try (InputStream model = resource("all-minilm-l6-v2-q.onnx");
        InputStream tokenizer = resource("all-minilm-l6-v2-q-tokenizer.json")) {
      byte[] tokenizerJson = tokenizer.readAllBytes();
      OrtEnvironment env = OrtEnvironment.getEnvironment();
      OrtSession.SessionOptions options = new OrtSession.SessionOptions();
      options.setIntraOpNumThreads(1);
      OrtSession session = env.createSession(model.readAllBytes(), options);
      return new Encoders(new OneEncoding(env, session, new ByteArrayInputStream(tokenizerJson)),
          new OnnxBertBiEncoder(env, session, new ByteArrayInputStream(tokenizerJson), PoolingMode.MEAN));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (OrtException e) {
      throw new IllegalStateException("the embedding model could not be loaded: " + e.getMessage(), e);
    }
  }

  /** The same session and tokenizer, two ways to a vector: {@link OneEncoding} first, the library's for longer texts. */
  private record Encoders(OneEncoding one, OnnxBertBiEncoder library) {}

  /**
   * A text of up to 512 tokens, tokenized once and run: the library's encoder tokenizes every text three times (to
   * count, to split, to check the split's round trip), work beside the model's own that a question need not wait for.
   * The vector is the library's to the bit: the same tokens, the same mean over every token, the same normalising.
   * Longer texts are the library's (it splits them and weighs the parts).
   */
  static final class OneEncoding {
    private static final int MAX_TOKENS = 512;
    private final OrtEnvironment env;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;

    OneEncoding(OrtEnvironment env, OrtSession session, InputStream tokenizerJson) throws IOException {
      this.env = env;
      this.session = session;
      this.tokenizer = HuggingFaceTokenizer.newInstance(tokenizerJson, Map.of("padding", "false"));
    }

    /** The text's vector and its token count (special tokens left out), or null when it is too long for one run. */
    Response<Embedding> embed(String text) {
      Encoding encoding = tokenizer.encode(text, true, false);
      long[] ids = encoding.getIds();
      if (ids.length > MAX_TOKENS) return null;
      long[] shape = {1, ids.length};
      try (OnnxTensor inputIds = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape);
          OnnxTensor mask = OnnxTensor.createTensor(env, LongBuffer.wrap(encoding.getAttentionMask()), shape);
          OnnxTensor types = OnnxTensor.createTensor(env, LongBuffer.wrap(encoding.getTypeIds()), shape);
          OrtSession.Result result = session.run(Map.of("input_ids", inputIds, "attention_mask", mask,
              "token_type_ids", types))) {
        float[][] tokens = ((float[][][]) result.get(0).getValue())[0];
        return Response.from(Embedding.from(normalised(mean(tokens))), new TokenUsage(ids.length - 2));
      } catch (OrtException e) {
        throw new IllegalStateException("the embedding model failed: " + e.getMessage(), e);
      }
    }

    // The library's arithmetic, in its order: a float sum over the tokens, each divided, then divided by the norm.
    private static float[] mean(float[][] tokens) {
      float[] mean = new float[tokens[0].length];
      for (float[] token : tokens) {
        for (int j = 0; j < mean.length; j++) mean[j] += token[j];
      }
      for (int j = 0; j < mean.length; j++) mean[j] /= tokens.length;
      return mean;
    }

    private static float[] normalised(float[] vector) {
      float sumSquare = 0;
      for (float v : vector) sumSquare += v * v;
      float norm = (float) Math.sqrt(sumSquare);
      float[] unit = new float[vector.length];
      for (int i = 0; i < vector.length; i++) unit[i] = vector[i] / norm;
      return unit;
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
    private final OneEncoding one;
    private final Executor bulk;
    /** Texts being embedded now, each with the embedding its first caller is making. */
    private final ConcurrentHashMap<String, CompletableFuture<Response<Embedding>>> embedding = new ConcurrentHashMap<>();
    /** Texts embedded one at a time, by the model (not shared). */
    private final AtomicLong made = new AtomicLong();

    OneThreadEach(Encoders encoders, Executor bulk) {
      super(bulk);
      this.encoder = encoders.library();
      this.one = encoders.one();
      this.bulk = bulk;
    }

    /** One text, tokenized once when it fits one run of the model. */
    private Response<Embedding> embedOnce(String text) {
      Response<Embedding> r = one.embed(text);
      if (r != null) return r;
      Response<List<Embedding>> split = super.embedAll(List.of(TextSegment.from(text)));
      return Response.from(split.content().get(0), split.tokenUsage());
    }

    /** Many texts side by side, one per core, each as {@link #embedOnce}. */
    @Override
    public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
      List<CompletableFuture<Response<Embedding>>> each = segments.stream()
          .map(s -> CompletableFuture.supplyAsync(() -> embedOnce(s.text()), bulk)).toList();
      List<Embedding> vectors = new ArrayList<>(each.size());
      int tokens = 0;
      for (CompletableFuture<Response<Embedding>> f : each) {
        Response<Embedding> r;
        try {
          r = f.join();
        } catch (CompletionException e) {
          throw e.getCause() instanceof RuntimeException re ? re : e;
        }
        vectors.add(r.content());
        tokens += r.tokenUsage() == null || r.tokenUsage().inputTokenCount() == null ? 0 : r.tokenUsage().inputTokenCount();
      }
      return Response.from(vectors, new TokenUsage(tokens));
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
        Response<Embedding> r = embedOnce(text);
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
