package dev.sqlagent.access;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.users.RowSettings;
import dev.sqlagent.users.User;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Row rules from the sign-on: once a session setting is a row rule ({@code SQLAGENT_OIDC_SETTINGS}, or the users file's
 * {@code settings:} of any user), every user's statements carry it, and a user without a value for it is refused
 * (403) before anything is read for them: their statements would otherwise run without the setting their row-level
 * security policies read. The refusal names the missing claim (signed in) or the users file's missing setting.
 */
final class RowRules {

  private final List<String> required;
  private final RowSettings fromClaims;

  private RowRules(List<String> required, RowSettings fromClaims) {
    this.required = required;
    this.fromClaims = fromClaims;
  }

  static RowRules of(AppConfig config) {
    return new RowRules(config.rowSettingNames(), config.oidc().map(o -> o.rowSettings()).orElse(RowSettings.NONE));
  }

  /** The 403 body for {@code user}, or null when they have every row setting. */
  JsonObject refusal(User user, boolean signedOn) {
    List<String> missing = RowSettings.missing(required, user);
    if (missing.isEmpty()) return null;
    String setting = missing.get(0);
    String claim = signedOn ? fromClaims.claimOf(setting) : null;
    String message;
    if (!signedOn) {
      message = "the users file gives " + user.name() + " no value for the session setting " + setting + " (settings:), "
          + "which every user's queries carry for the database's row rules; nothing is read for you without it";
    } else if (claim == null) {
      message = "no claim of the sign-on sets the session setting " + setting + ", which the users file sets for its users "
          + "and every user's queries carry for the database's row rules; add " + setting + "=<claim> to SQLAGENT_OIDC_SETTINGS";
    } else {
      message = "your sign-on token has no usable \"" + claim + "\" claim (a text, a number or true/false), which sets "
          + setting + " for the database's row rules (SQLAGENT_OIDC_SETTINGS); nothing is read for you without it: ask "
          + "for the claim to be added to your token";
    }
    JsonObject body = new JsonObject().put("ok", false).put("error_type", "forbidden")
        .put("reason", claim != null ? "missing_claim" : "missing_setting").put("setting", setting);
    if (claim != null) body.put("claim", claim);
    return body.put("message", message);
  }
}
