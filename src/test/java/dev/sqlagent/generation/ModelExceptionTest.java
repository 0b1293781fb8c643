package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.Test;

class ModelExceptionTest {

  @Test
  void failureReplyRoundTrips() {
    ModelException e = new ModelException(ModelException.Type.MODEL_QUOTA, "out of quota");
    ReplyException wire = new ReplyException(ReplyFailure.RECIPIENT_FAILURE, e.type().failureCode(), e.toJson().encode());
    ModelException back = ModelException.fromReplyFailure(wire);
    assertThat(back.type()).isEqualTo(ModelException.Type.MODEL_QUOTA);
    assertThat(back.getMessage()).isEqualTo("out of quota");
    assertThat(back.errorType()).isEqualTo("model_quota");
  }

  @Test
  void busFailuresBecomeModelFailures() {
    assertThat(ModelException.fromReplyFailure(new ReplyException(ReplyFailure.NO_HANDLERS, "none")).type())
        .isEqualTo(ModelException.Type.MODEL_UNAVAILABLE);
    assertThat(ModelException.fromReplyFailure(new ReplyException(ReplyFailure.TIMEOUT, "late")).type())
        .isEqualTo(ModelException.Type.MODEL_TIMEOUT);
  }
}
