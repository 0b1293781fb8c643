package dev.sqlagent.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers a test starts some time after choosing them (a child JVM, a database restarted on its port).
 * A port the kernel hands out ({@code new ServerSocket(0)}) comes from its ephemeral range, from which every
 * outgoing connection of the machine also takes its local port, so it may be taken before the server binds it
 * (a cluster test once failed with "Address already in use"). These come from below that range, where nothing
 * takes a port unasked, each one once per JVM.
 */
public final class FreePorts {

  private static final int LOW = 15_000;
  private static final int HIGH = Math.min(32_768, ephemeralLow());
  private static int next = HIGH > LOW ? LOW + ThreadLocalRandom.current().nextInt(HIGH - LOW) : 0;

  private FreePorts() {}

  /** A port no server listens on now, on any address. */
  public static synchronized int next() throws IOException {
    if (HIGH <= LOW) return kernelPicked();
    for (int tried = 0; tried < HIGH - LOW; tried++) {
      int port = next;
      next = next + 1 >= HIGH ? LOW : next + 1;
      if (bindable(port)) return port;
    }
    return kernelPicked();
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(port));
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static int kernelPicked() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The first port of the kernel's ephemeral range (Linux), or the usual one where it cannot be read. */
  private static int ephemeralLow() {
    try {
      return Integer.parseInt(ProcFiles.read(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
