package dev.sqlagent.users;

import java.net.URI;
import java.util.List;

/**
 * The company's sign-on ({@code SQLAGENT_OIDC_*}): the issuer whose keys verify bearer tokens, the audience a token
 * must name, the tolerated clock skew, how claims map to a user, and for the page's sign-in the public client's id
 * and the scopes it asks for. Read once at start; the keys themselves are fetched by {@link OidcVerifier}.
 *
 * @param keysRefetchSeconds the least time between two fetches of the issuer's keys prompted by an unknown key id
 * @param rowSettings the session settings set from claims for the user's statements ({@code SQLAGENT_OIDC_SETTINGS})
 */
public record OidcSettings(String issuer, List<String> audiences, String clientId, int clockSkewSeconds,
    ClaimMap claims, String scopes, int keysRefetchSeconds, RowSettings rowSettings) {

  public OidcSettings {
    audiences = List.copyOf(audiences);
    rowSettings = rowSettings == null ? RowSettings.NONE : rowSettings;
  }

  /**
   * The same with the row settings of {@code spec} ({@code SQLAGENT_OIDC_SETTINGS}).
   *
   * @throws IllegalArgumentException naming the setting that is wrong
   */
  public OidcSettings withRowSettings(String spec) {
    RowSettings parsed;
    try {
      parsed = RowSettings.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("SQLAGENT_OIDC_SETTINGS: " + e.getMessage());
    }
    return new OidcSettings(issuer, audiences, clientId, clockSkewSeconds, claims, scopes, keysRefetchSeconds, parsed);
  }

  /** The user these verified claims name, with the row settings they give. */
  User user(io.vertx.core.json.JsonObject verified) {
    User u = claims.user(verified);
    if (!rowSettings.configured()) return u;
    return new User(u.name(), u.displayName(), u.admin(), u.dbRole(), u.seeSensitive(), u.groups(),
        rowSettings.resolve(verified));
  }

  /**
   * Checks the values the settings hold.
   *
   * @throws IllegalArgumentException naming the setting that is wrong
   */
  public static OidcSettings of(String issuer, String audience, String clientId, int skew, String claims, String scopes,
      int refetch) {
    String iss = issuer.strip();
    URI uri;
    try {
      uri = URI.create(iss);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("SQLAGENT_OIDC_ISSUER=" + iss + ": not a URL");
    }
    if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new IllegalArgumentException("SQLAGENT_OIDC_ISSUER=" + iss + ": expected the issuer's URL, like "
          + "https://login.example.com/realms/acme (its /.well-known/openid-configuration is read at start)");
    }
    List<String> auds = audience == null ? List.of()
        : List.of(audience.split(",")).stream().map(String::strip).filter(a -> !a.isEmpty()).toList();
    String client = clientId == null || clientId.isBlank() ? null : clientId.strip();
    if (auds.isEmpty()) {
      if (client == null) {
        throw new IllegalArgumentException("SQLAGENT_OIDC_ISSUER is set but SQLAGENT_OIDC_AUDIENCE is not: name the audience "
            + "the service's tokens carry (aud), or set SQLAGENT_OIDC_CLIENT_ID, which is then the audience");
      }
      auds = List.of(client);
    }
    ClaimMap map;
    try {
      map = ClaimMap.parse(claims);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("SQLAGENT_OIDC_CLAIMS: " + e.getMessage());
    }
    return new OidcSettings(iss, auds, client, skew, map, scopes == null || scopes.isBlank() ? "openid profile" : scopes.strip(),
        refetch, RowSettings.NONE);
  }

  /** Where the issuer describes itself (OpenID Connect Discovery). */
  public String discoveryUrl() {
    return issuer.replaceAll("/+$", "") + "/.well-known/openid-configuration";
  }

  @Override
  public String toString() {
    return "issuer=" + issuer + " audience=" + String.join(",", audiences) + (clientId == null ? "" : " clientId=" + clientId)
        + " clockSkewS=" + clockSkewSeconds + " claims=" + claims
        + (rowSettings.configured() ? " settings=" + rowSettings : "");
  }
}
