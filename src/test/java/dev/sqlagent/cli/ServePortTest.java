package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.config.ConfigException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** serve checks its HTTP address before the slow start, and says which setting to change. */
class ServePortTest {

  @Test
  void aPortHeldByAnotherProcessStopsTheStartNamingTheAddressAndTheSetting() throws Exception {
    try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      int port = held.getLocalPort();
      assertThatThrownBy(() -> ServeCommand.checkCanListen("127.0.0.1", port))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + port)
          .hasMessageContaining("SQLAGENT_HTTP_PORT");
    }
  }

  @Test
  void aFreePortAndPortZeroPass() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    assertThatCode(() -> ServeCommand.checkCanListen("127.0.0.1", port)).doesNotThrowAnyException();
    assertThatCode(() -> ServeCommand.checkCanListen("127.0.0.1", 0)).doesNotThrowAnyException();
  }
}
