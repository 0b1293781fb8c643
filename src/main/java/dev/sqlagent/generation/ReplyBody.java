package dev.sqlagent.generation;

import dev.sqlagent.contract.ModelException.Type;
import dev.sqlagent.generation.Upstream.AttemptFailure;
import dev.sqlagent.generation.Upstream.Next;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.ext.web.codec.spi.BodyStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The response body of one attempt, read as it arrives. A body that starts with '{' or '[' is kept whole
 * (a completion, or an error, even when a stream was asked for); anything else on a streaming request is
 * parsed as Server-Sent Events chunk by chunk. Used instead of BodyCodec.sseStream because the caller must
 * also read plain JSON and error bodies on a streaming request, and must be able to abort: once
 * {@link #abort} is called (deadline passed) the next write fails, which makes the web client reset the
 * request. One instance per attempt.
 */
final class ReplyBody implements BodyCodec<Buffer> {

  static final int MAX_BODY_BYTES = 8 * 1024 * 1024;
  /** How much of an event stream is kept for error messages. */
  static final int KEPT_STREAM_BYTES = 16 * 1024;

  private enum Mode { UNDECIDED, WHOLE, EVENTS }

  private final SseParser sse;
  private final Buffer kept = Buffer.buffer();
  private Mode mode = Mode.UNDECIDED;
  private long received;
  private volatile Throwable failure;
  private volatile boolean aborted;

  /** {@code onEventData}: each SSE data payload; null when no stream was asked for. */
  ReplyBody(Consumer<String> onEventData) {
    this.sse = onEventData == null ? null : new SseParser(onEventData);
  }

  /** Whether the body was read as an event stream. */
  boolean wasEventStream() {
    return mode == Mode.EVENTS;
  }

  /** The failure the body itself raised (a bad chunk, too large), which explains a failed send. */
  Throwable failure() {
    return failure;
  }

  /** The kept text: the whole body, or the start of an event stream. */
  String text() {
    return kept.toString(StandardCharsets.UTF_8);
  }

  void abort() {
    aborted = true;
  }

  @Override
  public BodyStream<Buffer> stream() {
    return new Stream();
  }

  private final class Stream implements BodyStream<Buffer> {
    private final Promise<Buffer> result = Promise.promise();

    @Override
    public Future<Buffer> result() {
      return result.future();
    }

    @Override
    public Future<Void> write(Buffer data) {
      if (aborted) return fail(new AttemptFailure(Next.GIVE_UP, Type.MODEL_TIMEOUT, "aborted at the call's deadline"));
      try {
        received += data.length();
        if (mode == Mode.UNDECIDED) decide(data);
        if (mode == Mode.EVENTS) {
          if (kept.length() < KEPT_STREAM_BYTES) kept.appendBuffer(data, 0, Math.min(data.length(), KEPT_STREAM_BYTES - kept.length()));
          sse.feed(data.getBytes());
        } else {
          if (received > MAX_BODY_BYTES) {
            throw new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model server's reply is larger than " + MAX_BODY_BYTES + " bytes");
          }
          kept.appendBuffer(data);
        }
        return Future.succeededFuture();
      } catch (AttemptFailure e) {
        return fail(e);
      } catch (RuntimeException e) {
        return fail(new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model's reply could not be read: " + e.getMessage()));
      }
    }

    private void decide(Buffer data) {
      for (int i = 0; i < data.length(); i++) {
        byte b = data.getByte(i);
        if (b == ' ' || b == '\t' || b == '\r' || b == '\n') continue;
        mode = sse != null && b != '{' && b != '[' ? Mode.EVENTS : Mode.WHOLE;
        return;
      }
    }

    private Future<Void> fail(Throwable t) {
      if (failure == null) failure = t;
      result.tryFail(t);
      return Future.failedFuture(t);
    }

    @Override
    public Future<Void> end() {
      if (mode == Mode.EVENTS) {
        try {
          sse.finish();
        } catch (AttemptFailure e) {
          return fail(e);
        } catch (RuntimeException e) {
          return fail(new AttemptFailure(Next.GIVE_UP, Type.MODEL_ERROR, "the model's reply could not be read: " + e.getMessage()));
        }
      }
      result.tryComplete(kept);
      return Future.succeededFuture();
    }

    @Override
    public void handle(Throwable err) {
      if (failure == null) failure = err;
      result.tryFail(err);
    }

    @Override
    public WriteStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
      return this;
    }

    @Override
    public WriteStream<Buffer> setWriteQueueMaxSize(int maxSize) {
      return this;
    }

    @Override
    public boolean writeQueueFull() {
      return false;
    }

    @Override
    public WriteStream<Buffer> drainHandler(Handler<Void> handler) {
      return this;
    }
  }
}
