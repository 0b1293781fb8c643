package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.OidcServer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sign-on's token checks against a local issuer that serves discovery and keys, with tokens signed in the test:
 * each kind of bad token is refused with its own reason, a rotated key is fetched when a token first names it, and
 * a flood of unknown key ids does not become a flood of fetches.
 */
class OidcVerifierTest {

  static Vertx vertx;
  static OidcServer idp;
  static OidcServer.Key k1 = OidcServer.newKey("k1");
  static Context context;
  static OidcVerifier verifier;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    idp = OidcServer.start(vertx);
    idp.publish(k1);
    context = vertx.getOrCreateContext();
    OidcSettings settings = OidcSettings.of(idp.issuer(), OidcServer.AUDIENCE, OidcServer.CLIENT_ID, 5,
        "name=preferred_username,display_name=name,admin=groups:sql-admins,role=db_role,see_sensitive=groups:pii", null, 2);
    verifier = onContext(() -> {
      OidcVerifier v = new OidcVerifier(vertx, settings);
      return v.start().map(x -> v);
    });
  }

  @AfterAll
  static void stop() throws Exception {
    if (idp != null) idp.close();
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
  }

  static <T> T onContext(java.util.concurrent.Callable<Future<T>> work) throws Exception {
    Promise<T> p = Promise.promise();
    context.runOnContext(v -> {
      try {
        work.call().onComplete(p);
      } catch (Exception e) {
        p.fail(e);
      }
    });
    return p.future().await(60, TimeUnit.SECONDS);
  }

  static User verify(String token) throws Exception {
    return onContext(() -> verifier.verify(token)).user();
  }

  static OidcVerifier.Refused refusal(String token) throws Exception {
    try {
      User u = verify(token);
      throw new AssertionError("accepted as " + u);
    } catch (OidcVerifier.Refused r) {
      return r;
    }
  }

  @Test
  void aValidTokenNamesTheUserWithTheMappedClaims() throws Exception {
    User ann = verify(OidcServer.sign(k1, idp.claims("ann").put("name", "Ann Example").put("db_role", "analyst_east")
        .put("groups", new JsonArray().add("staff").add("sql-admins").add("pii"))));
    assertThat(ann).isEqualTo(new User("ann", "Ann Example", true, "analyst_east", true));
    User bob = verify(OidcServer.sign(k1, idp.claims("bob").put("groups", new JsonArray().add("staff"))));
    assertThat(bob).isEqualTo(new User("bob", "bob", false, null, false));
  }

  @Test
  void eachBadTokenIsRefusedWithItsReason() throws Exception {
    long now = System.currentTimeMillis() / 1000;
    OidcVerifier.Refused expired = refusal(OidcServer.sign(k1, idp.claims("ann").put("exp", now - 3600)));
    assertThat(expired.status()).isEqualTo(401);
    assertThat(expired.reason()).isEqualTo("expired");
    assertThat(expired.getMessage()).contains("expired at").contains("sign in again");
    // Within the clock skew (5 s here) a just-expired token still passes; past it, it does not.
    assertThat(verify(OidcServer.sign(k1, idp.claims("ann").put("exp", now - 1))).name()).isEqualTo("ann");
    // ... and that is until when a connection it opens may stay open.
    OidcVerifier.Verified nearlyOver = onContext(() -> verifier.verify(OidcServer.sign(k1, idp.claims("ann").put("exp", now - 1))));
    assertThat(nearlyOver.acceptedUntil()).isEqualTo(java.time.Instant.ofEpochSecond(now - 1 + 5));
    assertThat(refusal(OidcServer.sign(k1, idp.claims("ann").put("exp", now - 30))).reason()).isEqualTo("expired");
    assertThat(refusal(OidcServer.sign(k1, idp.claims("ann").put("nbf", now + 600))).reason()).isEqualTo("not_yet_valid");
    OidcVerifier.Refused audience = refusal(OidcServer.sign(k1, idp.claims("ann").put("aud", "another-app")));
    assertThat(audience.reason()).isEqualTo("wrong_audience");
    assertThat(audience.getMessage()).contains("another-app").contains(OidcServer.AUDIENCE);
    // One audience of several is enough.
    assertThat(verify(OidcServer.sign(k1, idp.claims("ann").put("aud", new JsonArray().add("x").add(OidcServer.AUDIENCE)))).name())
        .isEqualTo("ann");
    assertThat(refusal(OidcServer.sign(k1, idp.claims("ann").put("iss", "http://evil.example"))).reason()).isEqualTo("wrong_issuer");
    JsonObject noExpiry = idp.claims("ann");
    noExpiry.remove("exp");
    assertThat(refusal(OidcServer.sign(k1, noExpiry)).reason()).isEqualTo("no_expiry");
    assertThat(refusal(OidcServer.sign(k1, idp.claims("ann").put("exp", "tomorrow"))).reason()).isEqualTo("malformed");
    // Signed with another key that claims to be k1: the signature does not verify.
    OidcServer.Key forged = new OidcServer.Key("k1", OidcServer.newKey("x").pair());
    assertThat(refusal(OidcServer.sign(forged, idp.claims("ann"))).reason()).isEqualTo("bad_signature");
    // A key the issuer never published.
    assertThat(refusal(OidcServer.sign(OidcServer.newKey("stranger"), idp.claims("ann"))).reason()).isEqualTo("unknown_key");
    // A valid token whose payload was changed after signing.
    String good = OidcServer.sign(k1, idp.claims("bob"));
    String[] parts = good.split("\\.");
    String tampered = parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
        idp.claims("bob").put("groups", new JsonArray().add("sql-admins")).encode().getBytes()) + "." + parts[2];
    assertThat(refusal(tampered).reason()).isEqualTo("bad_signature");
    assertThat(refusal("not-a-jwt").reason()).isEqualTo("malformed");
    assertThat(refusal("a.b.c").reason()).isEqualTo("malformed");
    String none = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes()) + "."
        + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(idp.claims("ann").encode().getBytes()) + ".";
    assertThat(refusal(none + "x").reason()).isEqualTo("unsupported_algorithm");
    // Claims that cannot name a user.
    assertThat(refusal(OidcServer.sign(k1, idp.claims("ann").putNull("preferred_username"))).reason()).isEqualTo("unusable_claims");
    assertThat(refusal(OidcServer.sign(k1, idp.claims("ann").put("db_role", "x; DROP TABLE t"))).reason()).isEqualTo("unusable_claims");
  }

  @Test
  void aRotatedKeyIsFetchedWhenATokenFirstNamesItAndUnknownKeyIdsAreRateLimited() throws Exception {
    OidcServer.Key k2 = OidcServer.newKey("k2-" + UUID.randomUUID());
    String token = OidcServer.sign(k2, idp.claims("carol"));
    idp.publish(k1, k2);   // the issuer rotates: the new key is served from now on
    // The first use of the new key id fetches the keys again (at most once per 2 s): poll, the refetch may be
    // waiting for the interval since an earlier one.
    long until = System.currentTimeMillis() + 30_000;
    User carol = null;
    while (carol == null && System.currentTimeMillis() < until) {
      try {
        carol = verify(token);
      } catch (OidcVerifier.Refused r) {
        assertThat(r.reason()).isEqualTo("unknown_key");
        Thread.sleep(200);
      }
    }
    assertThat(carol).as("the rotated key was fetched").isNotNull();
    assertThat(carol.name()).isEqualTo("carol");
    // 200 tokens with made-up key ids, as fast as they come: one fetch per interval at most, not one per token.
    int before = idp.jwksFetches();
    long started = System.nanoTime();
    for (int i = 0; i < 200; i++) {
      assertThat(refusal(OidcServer.sign(new OidcServer.Key("forged-" + i, k1.pair()), idp.claims("mallory"))).reason())
          .isEqualTo("unknown_key");
    }
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    assertThat(idp.jwksFetches() - before).as("fetches for 200 unknown key ids in %d s", seconds).isLessThanOrEqualTo((int) (seconds / 2) + 2);
    // The old key still works.
    assertThat(verify(OidcServer.sign(k1, idp.claims("ann"))).name()).isEqualTo("ann");
  }

  @Test
  void anIssuerThatCannotBeReachedIsA503NotA401() throws Exception {
    int closed = dev.sqlagent.testing.FreePorts.next();
    OidcSettings settings = OidcSettings.of("http://127.0.0.1:" + closed + "/realms/none", "sql-agent", null, 5, null, null, 1);
    OidcVerifier down = onContext(() -> {
      OidcVerifier v = new OidcVerifier(vertx, settings);
      return v.start().map(x -> v);
    });
    try {
      onContext(() -> down.verify(OidcServer.sign(k1, idp.claims("ann"))));
      throw new AssertionError("accepted");
    } catch (OidcVerifier.Refused r) {
      assertThat(r.status()).isEqualTo(503);
      assertThat(r.reason()).isEqualTo("identity_provider_unavailable");
      assertThat(r.getMessage()).contains("127.0.0.1:" + closed);
    }
  }
}
