package dev.sqlagent.web;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The static page: {@code webroot/} from the classpath (the build copies it into the jar), so it is served
 * the same from the fat jar as from a checkout. No build step: plain HTML, CSS and JavaScript.
 */
public final class Page {

  private static final String CSP = "default-src 'self'; connect-src 'self'%s; img-src 'self' data:; "
      + "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

  private Page() {}

  public static void mount(Router router) {
    mount(router, () -> "");
  }

  /**
   * @param connectSources origins the page may also fetch from, space-separated (the sign-on's token endpoint, once
   *     known), or ""
   */
  public static void mount(Router router, java.util.function.Supplier<String> connectSources) {
    StaticHandler files = StaticHandler.create("webroot").setIndexPage("index.html").setDefaultContentEncoding("UTF-8");
    // Browsers ask for /favicon.ico whatever the page links; the icon is an SVG.
    router.get("/favicon.ico").handler(ctx -> ctx.reroute("/favicon.svg"));
    router.get("/*").handler(ctx -> {
      String extra = connectSources.get();
      ctx.response().putHeader("Content-Security-Policy", CSP.formatted(extra.isEmpty() ? "" : " " + extra)).putHeader("X-Content-Type-Options", "nosniff")
          .putHeader("Referrer-Policy", "no-referrer");
      ctx.next();
    }).handler(files);
  }
}
