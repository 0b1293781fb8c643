package dev.sqlagent.live;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import io.vertx.core.http.HttpClosedException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import org.slf4j.Marker;

/**
 * The SockJS bridge logs every connection a client drops without a closing handshake (a closed tab, a lost network,
 * a proxy's idle cut) as an ERROR with a stack trace, before the service hears of it. Those are the normal end of a
 * session: this drops them, and the bridge notes them at DEBUG ({@code EventBridge}). Every other ERROR of the bridge
 * stays. Installed in logback.xml.
 */
public final class QuietDisconnects extends TurboFilter {

  static final String BRIDGE_LOGGER = "io.vertx.ext.web.handler.sockjs";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level == null || t == null || !logger.getName().startsWith(BRIDGE_LOGGER)) return FilterReply.NEUTRAL;
    return isDisconnect(t) ? FilterReply.DENY : FilterReply.NEUTRAL;
  }

  /** The connection ended under the socket: closed, reset by the peer, or written to after the peer left. */
  static boolean isDisconnect(Throwable t) {
    if (t instanceof HttpClosedException || t instanceof ClosedChannelException) return true;
    if (!(t instanceof IOException)) return false;
    String message = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
    return message.contains("connection reset") || message.contains("broken pipe") || message.contains("connection was closed");
  }
}
