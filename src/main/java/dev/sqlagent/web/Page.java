package dev.sqlagent.web;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The static page: {@code webroot/} from the classpath (the build copies it into the jar), so it is served
 * the same from the fat jar as from a checkout. No build step: plain HTML, CSS and JavaScript.
 */
public final class Page {

  private static final String CSP = "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
      + "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

  private Page() {}

  public static void mount(Router router) {
    StaticHandler files = StaticHandler.create("webroot").setIndexPage("index.html").setDefaultContentEncoding("UTF-8");
    // Browsers ask for /favicon.ico whatever the page links; the icon is an SVG.
    router.get("/favicon.ico").handler(ctx -> ctx.reroute("/favicon.svg"));
    router.get("/*").handler(ctx -> {
      ctx.response().putHeader("Content-Security-Policy", CSP).putHeader("X-Content-Type-Options", "nosniff")
          .putHeader("Referrer-Policy", "no-referrer");
      ctx.next();
    }).handler(files);
  }
}
