package dev.sqlagent.db;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Iterator;
import java.util.function.Function;

/**
 * Runs a step for each item, one after another, on one connection's statements: each step starts when the one before
 * it has succeeded, and the first failure ends the run with that failure.
 *
 * <p>Why not {@code chain = chain.compose(...)} in a loop: a step that completes at once (a column skipped, a
 * statement refused by a closed connection) completes the next link inside the callback of the one before, so a
 * long run of them nests one stack frame group per item: thousands of skipped columns on a 1,000-table schema end in
 * a {@link StackOverflowError}. Here a step already complete is followed by a loop, and only a step still pending
 * waits for its callback (which starts from the event loop's own stack).
 */
public final class OneAfterAnother {
  private OneAfterAnother() {}

  public static <T> Future<Void> each(Iterable<T> items, Function<T, Future<?>> step) {
    Promise<Void> done = Promise.promise();
    next(items.iterator(), step, done);
    return done.future();
  }

  private static <T> void next(Iterator<T> items, Function<T, Future<?>> step, Promise<Void> done) {
    while (items.hasNext()) {
      Future<?> f;
      try {
        f = step.apply(items.next());
      } catch (RuntimeException e) {
        done.fail(e);
        return;
      }
      if (!f.isComplete()) {
        f.onComplete(ar -> {
          if (ar.failed()) done.fail(ar.cause());
          else next(items, step, done);
        });
        return;
      }
      if (f.failed()) {
        done.fail(f.cause());
        return;
      }
    }
    done.complete();
  }
}
