package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The one-thread session gives the vectors the library's own session gives, one text or many at once; a text asked for
 * while it is being embedded is embedded once, and each caller gets its own copy of the vector.
 */
class MiniLmModelTest {

  @Test
  void vectorsAreThoseOfTheStockModel() {
    EmbeddingModel stock = new AllMiniLmL6V2QuantizedEmbeddingModel(Runnable::run);
    EmbeddingModel ours = MiniLmModel.get();
    assertThat(MiniLmModel.get()).isSameAs(ours);
    String question = "How many bills were paid in 2025?";
    assertThat(ours.embed(question).content().vector()).containsExactly(stock.embed(question).content().vector());

    List<TextSegment> documents = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      documents.add(TextSegment.from("Table t" + i + ". Bills of " + (2015 + i) + ". Columns: bill_id, billed_at, total, status."));
    }
    List<Embedding> many = ours.embedAll(documents).content();
    List<Embedding> expected = stock.embedAll(documents).content();
    assertThat(many).hasSize(12);
    for (int i = 0; i < 12; i++) assertThat(many.get(i).vector()).containsExactly(expected.get(i).vector());
    assertThat(ours.dimension()).isEqualTo(384);
  }

  /**
   * A text is tokenized once where the library tokenizes it three times; the vector is still the library's to the bit:
   * every shipped evaluation question, accents and symbols, and a text too long for one run (the library's split).
   */
  @Test
  void tokenizedOnceTheVectorIsStillTheLibrarys() {
    EmbeddingModel stock = new AllMiniLmL6V2QuantizedEmbeddingModel(Runnable::run);
    EmbeddingModel ours = MiniLmModel.get();
    List<String> texts = new ArrayList<>(dev.sqlagent.eval.QuestionSet.shipped().stream()
        .map(dev.sqlagent.eval.Question::question).toList());
    assertThat(texts).hasSizeGreaterThan(40);
    texts.add("Café crème, naïve résumé: what did Zoë pay in € and ¥ on 2024-12-31?");
    texts.add("Columns: id (int8), e-mail, \"quoted\", x_y_z, 12.5%, a/b; <tag> & {brace} [bracket] don't");
    texts.add("orders shipped late ".repeat(200));
    for (String text : texts) {
      Response<Embedding> mine = ours.embed(text);
      Response<Embedding> theirs = stock.embed(text);
      assertThat(mine.content().vector()).as(text).containsExactly(theirs.content().vector());
      assertThat(mine.tokenUsage().inputTokenCount()).as(text).isEqualTo(theirs.tokenUsage().inputTokenCount());
    }
    List<TextSegment> all = texts.stream().map(TextSegment::from).toList();
    List<Embedding> many = ours.embedAll(all).content();
    for (int i = 0; i < texts.size(); i++) {
      assertThat(many.get(i).vector()).as(texts.get(i)).containsExactly(stock.embed(texts.get(i)).content().vector());
    }
  }

  @Test
  void aTextAskedForWhileItIsBeingEmbeddedIsEmbeddedOnce() throws Exception {
    EmbeddingModel model = MiniLmModel.get();
    // Long enough (~400 tokens) that callers released together all arrive while the first is still embedding it.
    String text = "Which customers in the northern region placed more than three orders last quarter, and what was "
        .repeat(20);
    float[] alone = model.embed(text).content().vector();
    int callers = 4;
    CyclicBarrier together = new CyclicBarrier(callers);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      long before = MiniLmModel.textsEmbedded();
      List<Future<float[]>> asked = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        asked.add(pool.submit(() -> {
          together.await(10, TimeUnit.SECONDS);
          return model.embed(text).content().vector();
        }));
      }
      List<float[]> got = new ArrayList<>();
      for (Future<float[]> f : asked) got.add(f.get(60, TimeUnit.SECONDS));
      long made = MiniLmModel.textsEmbedded() - before;
      assertThat(made).as("embeddings the model made for %d callers at once", callers).isBetween(1L, (long) callers - 1);
      for (float[] v : got) assertThat(v).containsExactly(alone);
      // Copies: one caller changing its vector changes no other's.
      got.get(0)[0] = 42f;
      for (int i = 1; i < callers; i++) assertThat(got.get(i)[0]).isEqualTo(alone[0]);
      // Asked again once that is done, the text is embedded again (nothing is kept).
      long after = MiniLmModel.textsEmbedded();
      model.embed(text);
      assertThat(MiniLmModel.textsEmbedded()).isEqualTo(after + 1);
    } finally {
      pool.shutdownNow();
    }
  }
}
