package dev.sqlagent.cli;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.Databases;
import dev.sqlagent.mcp.DatabaseMcpServer;
import dev.sqlagent.tools.DatabaseTools;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.vertx.core.Vertx;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/**
 * {@code sql-agent mcp}: the database tools over MCP on stdin/stdout, for MCP clients that launch a command.
 * Opens the database like the service and runs its verticles without HTTP. Stdout carries only the
 * protocol: everything else (logs included) goes to stderr. Ends when the client closes stdin.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
    description = "Serve the tools list_tables, describe_table, sample_rows, run_query, ask, feedback, verify, "
        + "choose_reading and export over MCP on stdin/stdout (for MCP clients that launch a command). Logs go to stderr; exits when stdin closes.")
public final class McpCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(McpCommand.class);

  @Override
  public Integer call() throws Exception {
    // Claim stdout for the protocol before anything can print to it; stray prints land on stderr.
    OutputStream protocolOut = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    CountDownLatch stdinClosed = new CountDownLatch(1);
    InputStream protocolIn = new EndAwareInputStream(new FileInputStream(FileDescriptor.in), stdinClosed);

    // The ask tool needs the model: a local one is served as serve does (its tools answer while it loads).
    try (LocalModel localModel = LocalModel.start(AppConfig.fromEnvironment())) {
      return serve(localModel.config(), protocolIn, protocolOut, stdinClosed);
    }
  }

  private int serve(AppConfig config, InputStream protocolIn, OutputStream protocolOut, CountDownLatch stdinClosed)
      throws Exception {
    try (Databases db = Databases.open(config)) {
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      McpAsyncServer server = null;
      try {
        vertx.deployVerticle(new MainVerticle(config, db.target(), db.state(), false)).await(5, TimeUnit.MINUTES);
        StdioServerTransportProvider transport =
            new StdioServerTransportProvider(DatabaseMcpServer.jsonMapper(), protocolIn, protocolOut);
        server = DatabaseMcpServer.build(McpServer.async(transport), vertx, new DatabaseTools(vertx, config.deadlines(),
        new dev.sqlagent.export.ExportStream.Limits(config.exportMaxRows(), config.exportMaxBytes()),
        dev.sqlagent.export.ExportSlots.of(vertx, config.exportsPerUser())),
            Duration.ofMillis(config.deadlines().outerMs()));
        LOG.info("MCP server on stdio ready: {} tools", DatabaseTools.ARGUMENTS.size());
        stdinClosed.await();
        LOG.info("stdin closed: stopping the MCP server");
      } finally {
        if (server != null) server.closeGracefully().onErrorComplete().block(Duration.ofSeconds(5));
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
    return 0;
  }

  /** Counts down when the stream ends or fails: the client has gone. */
  private static final class EndAwareInputStream extends FilterInputStream {
    private final CountDownLatch ended;

    EndAwareInputStream(InputStream in, CountDownLatch ended) {
      super(in);
      this.ended = ended;
    }

    @Override
    public int read() throws IOException {
      return check(() -> super.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return check(() -> super.read(b, off, len));
    }

    private int check(IoRead r) throws IOException {
      try {
        int n = r.read();
        if (n < 0) ended.countDown();
        return n;
      } catch (IOException e) {
        ended.countDown();
        throw e;
      }
    }

    @FunctionalInterface
    private interface IoRead {
      int read() throws IOException;
    }
  }
}
