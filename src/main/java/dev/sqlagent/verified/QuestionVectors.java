package dev.sqlagent.verified;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.sqlagent.retrieval.MiniLmModel;

/**
 * Questions as vectors, for question-to-question similarity: the same all-MiniLM-L6-v2 model retrieval uses,
 * both sides embedded alike (a paraphrase is a sentence like the one it paraphrases).
 * BLOCKING (ONNX inference): call it from a worker.
 */
public final class QuestionVectors {

  /** Longer questions are cut before embedding (the model reads 512 tokens at most). */
  static final int MAX_CHARS = 2_000;

  private QuestionVectors() {}

  public static float[] embed(String question) {
    String q = question.strip();
    if (q.length() > MAX_CHARS) q = q.substring(0, MAX_CHARS);
    return model().embed(q).content().vector();
  }

  /** Cosine similarity of two vectors of the same length. */
  public static double similarity(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
  }

  private static EmbeddingModel model() {
    return MiniLmModel.get();
  }
}
