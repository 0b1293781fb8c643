package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.BenchmarkMachine;
import dev.sqlagent.testing.OidcServer;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a sign-on token costs the event loop: the time {@link OidcVerifier#verify} takes on its context for a valid
 * RS256 token (signature, issuer, audience, time, claims), keys already fetched. Writes
 * {@code target/benchmarks/sign-on.txt}.
 */
@Tag("benchmark")
class SignOnBenchmark {

  static final int WARM_UP = 2_000;
  static final int MEASURED = 5_000;

  @Test
  void verifyingATokenOnTheEventLoop() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (OidcServer idp = OidcServer.start(vertx)) {
      OidcServer.Key key = OidcServer.newKey("k1");
      idp.publish(key);
      Context context = vertx.getOrCreateContext();
      OidcSettings settings = OidcSettings.of(idp.issuer(), OidcServer.AUDIENCE, null, 60,
          "name=preferred_username,admin=groups:sql-admins", null, 10);
      Promise<OidcVerifier> made = Promise.promise();
      context.runOnContext(v -> {
        OidcVerifier verifier = new OidcVerifier(vertx, settings);
        verifier.start().onComplete(ar -> made.complete(verifier));
      });
      OidcVerifier verifier = made.future().await(30, TimeUnit.SECONDS);
      List<String> tokens = new ArrayList<>();
      for (int i = 0; i < WARM_UP + MEASURED; i++) tokens.add(OidcServer.sign(key, idp.claims("user" + (i % 50))));
      long[] nanos = new long[MEASURED];
      Promise<Void> done = Promise.promise();
      context.runOnContext(v -> {
        for (int i = 0; i < tokens.size(); i++) {
          long t0 = System.nanoTime();
          // Keys are fetched: verify completes synchronously, so this is its whole cost on the loop.
          boolean ok = verifier.verify(tokens.get(i)).succeeded();
          long t = System.nanoTime() - t0;
          if (!ok) {
            done.fail("token " + i + " was refused");
            return;
          }
          if (i >= WARM_UP) nanos[i - WARM_UP] = t;
        }
        done.complete();
      });
      done.future().await(300, TimeUnit.SECONDS);
      Arrays.sort(nanos);
      double p50 = nanos[MEASURED / 2] / 1000.0;
      double p99 = nanos[MEASURED * 99 / 100] / 1000.0;
      String report = String.format("sign-on token verification on the event loop, RS256 2048-bit, %d tokens after %d warm-up:%n"
          + "p50 %.0f us, p99 %.0f us, max %.0f us; load average %s%n", MEASURED, WARM_UP, p50, p99, nanos[MEASURED - 1] / 1000.0,
          BenchmarkMachine.loadAverage());
      Files.createDirectories(Path.of("target/benchmarks"));
      Files.writeString(Path.of("target/benchmarks/sign-on.txt"), report);
      System.out.print(report);
      assertThat(p50).isPositive();
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}
