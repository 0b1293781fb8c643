package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one-thread session gives the vectors the library's own session gives, one text or many at once. */
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
}
