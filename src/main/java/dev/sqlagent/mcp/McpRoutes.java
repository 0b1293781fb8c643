package dev.sqlagent.mcp;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.tools.DatabaseTools;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /mcp}: the database tools over MCP Streamable HTTP on the running service. Routes are added where this
 * is called, so the access guard's origin and bearer-token checks, mounted on {@code /mcp} before it, guard
 * every method. The SDK's deadline for a tool call is {@code Deadlines.outerMs()}: past the agent's.
 */
public final class McpRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(McpRoutes.class);

  public static final String PATH = "/mcp";
  /** A JSON-RPC message is small; a question is at most 2,000 characters. */
  static final int BODY_LIMIT = 64 * 1024;
  static final int MAX_SESSIONS = 1_000;
  static final Duration IDLE = Duration.ofMinutes(30);

  private McpRoutes() {}

  public static void mount(Router router, Vertx vertx, AppConfig config) {
    DatabaseTools tools = new DatabaseTools(vertx, config.deadlines(),
        new dev.sqlagent.export.ExportStream.Limits(config.exportMaxRows(), config.exportMaxBytes()),
        dev.sqlagent.export.ExportSlots.of(vertx, config.exportsPerUser()));
    // Building the SDK server loads Jackson 3, reactor and the schema validator: seconds of class loading,
    // so on a worker. Requests that arrive meanwhile wait for it.
    Future<VertxStreamableHttpTransport> ready = vertx.executeBlocking(() -> {
      VertxStreamableHttpTransport transport = new VertxStreamableHttpTransport(DatabaseMcpServer.jsonMapper(), MAX_SESSIONS);
      McpAsyncServer server = DatabaseMcpServer.build(McpServer.async(transport), vertx, tools,
          Duration.ofMillis(config.deadlines().outerMs()));
      DatabaseMcpServer.warmUp();
      LOG.debug("MCP Streamable HTTP at {} ({} {})", PATH, server.getServerInfo().name(), server.getServerInfo().version());
      return transport;
    }, false);
    ready.onFailure(e -> LOG.error("the MCP server could not be built; {} answers 503", PATH, e));
    router.post(PATH).handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT));
    router.route(PATH).handler(ctx -> ready
        .onSuccess(transport -> transport.handle(ctx))
        .onFailure(e -> ctx.response().setStatusCode(503).putHeader("content-type", "application/json")
            .end(new JsonObject().put("jsonrpc", "2.0").putNull("id").put("error",
                new JsonObject().put("code", -32603).put("message", "the MCP server is unavailable")).encode())));
    // Created in the HTTP verticle's start: the timer goes when the verticle is undeployed.
    vertx.setPeriodic(Duration.ofMinutes(1).toMillis(), t -> ready.onSuccess(transport -> transport.expireIdle(IDLE)));
  }
}
