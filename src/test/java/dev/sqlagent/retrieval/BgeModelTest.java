package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one-thread session gives the vectors the library's own session gives, one text or many at once. */
class BgeModelTest {

  @Test
  void vectorsAreThoseOfTheStockModel() {
    EmbeddingModel stock = new BgeSmallEnV15QuantizedEmbeddingModel(Runnable::run);
    EmbeddingModel ours = BgeModel.get();
    assertThat(BgeModel.get()).isSameAs(ours);
    String question = TableSelector.QUERY_PREFIX + "How many bills were paid in 2025?";
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
}
