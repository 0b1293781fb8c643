package dev.sqlagent.users;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The users of the service ({@code SQLAGENT_USERS}), each known by the SHA-256 of their token: the file holds
 * only digests, and a presented token is hashed before it is looked up, so no token is kept in memory or
 * written anywhere. {@link #NONE} (no file) keeps the single optional shared token of before.
 */
public final class Users {

  public static final Users NONE = new Users(List.of(), List.of());
  /** RoutingContext key of the {@link User} a request authenticated as (absent without a users file). */
  public static final String CONTEXT_KEY = "sqlagent.user";

  private final List<User> users;
  private final List<String> digests;
  private final Map<String, User> byDigest = new HashMap<>();
  private final Budgets budgets;

  Users(List<User> users, List<String> digests) {
    this(users, digests, Budgets.NONE);
  }

  Users(List<User> users, List<String> digests, Budgets budgets) {
    this.budgets = budgets;
    this.users = List.copyOf(users);
    this.digests = List.copyOf(digests);
    for (int i = 0; i < users.size(); i++) byDigest.put(digests.get(i), users.get(i));
  }

  public boolean configured() {
    return !users.isEmpty();
  }

  /** The budgets the file writes (none without a file). */
  public Budgets budgets() {
    return budgets;
  }

  public List<User> all() {
    return users;
  }

  /** The user whose token this is. */
  public Optional<User> authenticate(String presentedToken) {
    if (presentedToken == null || presentedToken.isEmpty()) return Optional.empty();
    return Optional.ofNullable(byDigest.get(sha256Hex(presentedToken)));
  }

  /** The database roles users switch to (the gate checks at start that the agent role may). */
  public List<String> dbRoles() {
    return users.stream().map(User::dbRole).filter(r -> r != null).distinct().sorted().toList();
  }

  /** The session settings any user of the file sets (row rules), sorted: every user's statements need each. */
  public List<String> settingNames() {
    return users.stream().flatMap(u -> u.settings().keySet().stream()).distinct().sorted().toList();
  }

  /** The user a request authenticated as; null without a users file. */
  public static User of(io.vertx.ext.web.RoutingContext ctx) {
    return ctx.get(CONTEXT_KEY);
  }

  /**
   * The user a live connection (a SockJS socket) authenticated as when it opened, from its Authorization header
   * or its {@code token} / {@code access_token} query parameter; null when neither names a user.
   */
  public User userOf(String authorization, String uri) {
    String presented = null;
    if (authorization != null && authorization.trim().regionMatches(true, 0, "Bearer ", 0, 7)) {
      presented = authorization.trim().substring(7).trim();
    }
    if (presented == null && uri != null && uri.indexOf('?') >= 0) {
      for (String pair : uri.substring(uri.indexOf('?') + 1).split("&")) {
        int eq = pair.indexOf('=');
        if (eq <= 0) continue;
        String key = pair.substring(0, eq);
        if (key.equals("token") || key.equals("access_token")) {
          presented = java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
          break;
        }
      }
    }
    return authenticate(presented).orElse(null);
  }

  public static String sha256Hex(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
