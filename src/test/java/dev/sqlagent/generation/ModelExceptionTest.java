package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.ModelException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.Test;

class ModelExceptionTest {

  @Test
  void everyTypeTravelsAsItsBusFailure() {
    for (ModelException.Type type : ModelException.Type.values()) {
      ModelException e = new ModelException(type, "it went wrong: " + type);
      ReplyException wire = new ReplyException(ReplyFailure.RECIPIENT_FAILURE, e.failure().failure().code(), e.getMessage());
      ModelException back = ModelException.of(wire);
      assertThat(back.type()).isEqualTo(type);
      assertThat(back.getMessage()).isEqualTo("it went wrong: " + type);
      assertThat(back.errorType()).isEqualTo(type.wireName());
    }
    assertThat(ModelException.Type.MODEL_QUOTA.failure()).isEqualTo(BusFailure.BUSY);
  }

  @Test
  void busFailuresBecomeModelFailures() {
    assertThat(ModelException.of(new ReplyException(ReplyFailure.NO_HANDLERS, "none")).type())
        .isEqualTo(ModelException.Type.MODEL_UNAVAILABLE);
    assertThat(ModelException.of(new ReplyException(ReplyFailure.TIMEOUT, "late")).type())
        .isEqualTo(ModelException.Type.MODEL_TIMEOUT);
    assertThat(ModelException.of(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 500, "boom")).type())
        .isEqualTo(ModelException.Type.MODEL_ERROR);
  }
}
