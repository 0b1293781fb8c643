package dev.sqlagent.network;

import io.vertx.core.MultiMap;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Who the client of a request is, when proxies stand in front of the service ({@code SQLAGENT_TRUSTED_PROXIES}, a
 * list of CIDR blocks, IPv4 and IPv6). The one place that reads {@code Forwarded}, {@code X-Forwarded-For},
 * {@code X-Forwarded-Proto} and {@code X-Forwarded-Host}: they are honoured only when the socket's peer is a trusted
 * proxy, and then the client is the right-most forwarded address that is not itself a trusted proxy (the addresses to
 * its left were written by hops nobody vouches for). From any other peer the headers change nothing: the client is the
 * peer. Used for the per-client question limit, the origin check, watching from this machine and the query log.
 */
public final class TrustedProxies {

  /** No proxy is trusted: every header is ignored (the default). */
  public static final TrustedProxies NONE = new TrustedProxies(List.of(), "");

  private final List<Block> blocks;
  private final String text;

  private TrustedProxies(List<Block> blocks, String text) {
    this.blocks = List.copyOf(blocks);
    this.text = text;
  }

  /**
   * Parses {@code 10.0.0.0/8, 192.168.1.7, fd00::/8}: addresses only (a host name is refused, it would need a
   * lookup), a bare address meaning that one address.
   *
   * @throws IllegalArgumentException naming the entry that is not a CIDR block
   */
  public static TrustedProxies parse(String list) {
    if (list == null || list.isBlank()) return NONE;
    List<Block> blocks = new ArrayList<>();
    for (String raw : list.split(",")) {
      String entry = raw.strip();
      if (entry.isEmpty()) continue;
      blocks.add(Block.parse(entry));
    }
    return new TrustedProxies(blocks, String.join(",", blocks.stream().map(Block::toString).toList()));
  }

  public boolean configured() {
    return !blocks.isEmpty();
  }

  /** Whether {@code address} (a literal IPv4 or IPv6 address) is in one of the blocks. */
  public boolean trusts(String address) {
    byte[] bytes = literal(address);
    if (bytes == null) return false;
    for (Block b : blocks) {
      if (b.contains(bytes)) return true;
    }
    return false;
  }

  /** Where the access guard leaves a request's client address ({@link #clientOf}) for the edges to read. */
  public static final String CLIENT_KEY = "sqlagent.client";

  /**
   * The client address the access guard found for this request (null when the guard did not see it): what the query
   * log keeps as the asking client.
   */
  public static String clientAddress(RoutingContext ctx) {
    return ctx == null ? null : ctx.get(CLIENT_KEY);
  }

  /** The client of this request (see the class comment): an address, never a header's word for it from an untrusted peer. */
  public String clientOf(RoutingContext ctx) {
    return client(ctx.request().remoteAddress(), ctx.request().headers()).address();
  }

  /** Whether the client of this request is on this machine (a loopback address). */
  public boolean clientIsLoopback(RoutingContext ctx) {
    return isLoopback(clientOf(ctx));
  }

  /** The client behind {@code peer}, given the request's headers. */
  public Client client(SocketAddress peer, MultiMap headers) {
    String peerHost = peer == null ? null : unbracket(peer.host());
    if (peerHost == null) return new Client("unknown", false);
    if (!trusts(peerHost)) return new Client(canonical(peerHost), false);
    List<String> chain = forwardedFor(headers);
    // Right to left: each trusted hop vouches for the one before it; the first hop not trusted is the client.
    String client = peerHost;
    for (int i = chain.size() - 1; i >= 0; i--) {
      String hop = chain.get(i);
      if (literal(hop) == null) break;   // "unknown", an obfuscated name: the last trusted hop is all we know
      client = hop;
      if (!trusts(hop)) break;
    }
    return new Client(canonical(client), true);
  }

  /**
   * The scheme and host the browser used, as the trusted proxy in front reports them ({@code Forwarded: proto=…;host=…}
   * or {@code X-Forwarded-Proto} / {@code X-Forwarded-Host}); null when the peer is not trusted or says nothing.
   */
  public Origin forwardedOrigin(SocketAddress peer, MultiMap headers) {
    String peerHost = peer == null ? null : unbracket(peer.host());
    if (peerHost == null || !trusts(peerHost)) return null;
    String proto = null;
    String host = null;
    List<String> forwarded = headers.getAll("Forwarded");
    if (!forwarded.isEmpty()) {
      // The first element is the one the outermost proxy wrote: what the browser asked for.
      String first = String.join(",", forwarded).split(",", 2)[0];
      for (String pair : first.split(";")) {
        int eq = pair.indexOf('=');
        if (eq <= 0) continue;
        String key = pair.substring(0, eq).strip().toLowerCase(Locale.ROOT);
        String value = unquote(pair.substring(eq + 1).strip());
        if (key.equals("proto")) proto = value;
        if (key.equals("host")) host = value;
      }
    }
    if (proto == null) proto = first(headers.get("X-Forwarded-Proto"));
    if (host == null) host = first(headers.get("X-Forwarded-Host"));
    if (host == null) return null;
    proto = proto == null ? null : proto.toLowerCase(Locale.ROOT);
    if (proto != null && !proto.equals("http") && !proto.equals("https")) return null;
    return new Origin(proto, host.toLowerCase(Locale.ROOT));
  }

  @Override
  public String toString() {
    return configured() ? text : "none";
  }

  /** The client's address, and whether a trusted proxy named it. */
  public record Client(String address, boolean viaProxy) {}

  /** What a trusted proxy says the browser asked for: {@code proto} may be null (then the connection's own). */
  public record Origin(String proto, String host) {}

  /** The addresses a request was forwarded for, left (first client) to right (the hop before the peer). */
  static List<String> forwardedFor(MultiMap headers) {
    List<String> out = new ArrayList<>();
    List<String> forwarded = headers.getAll("Forwarded");
    if (!forwarded.isEmpty()) {
      for (String element : String.join(",", forwarded).split(",")) {
        String forValue = null;
        for (String pair : element.split(";")) {
          int eq = pair.indexOf('=');
          if (eq > 0 && pair.substring(0, eq).strip().equalsIgnoreCase("for")) forValue = unquote(pair.substring(eq + 1).strip());
        }
        out.add(forValue == null ? "unknown" : nodeAddress(forValue));
      }
      return out;
    }
    for (String header : headers.getAll("X-Forwarded-For")) {
      for (String hop : header.split(",")) {
        if (!hop.isBlank()) out.add(nodeAddress(hop.strip()));
      }
    }
    return out;
  }

  /** {@code [2001:db8::1]:4711}, {@code 192.0.2.1:80}, {@code 2001:db8::1}: the address alone. */
  static String nodeAddress(String node) {
    String n = node.strip();
    if (n.startsWith("[")) {
      int close = n.indexOf(']');
      return close > 0 ? n.substring(1, close) : n;
    }
    int colon = n.indexOf(':');
    if (colon > 0 && colon == n.lastIndexOf(':')) return n.substring(0, colon);   // IPv4 with a port
    return n;
  }

  public static boolean isLoopback(String address) {
    InetAddress a = inet(address);
    return a != null && a.isLoopbackAddress();
  }

  /** A literal address as an InetAddress (no lookup), or null when it is not one. */
  private static InetAddress inet(String address) {
    byte[] bytes = literal(address);
    if (bytes == null) return null;
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /** The bytes of a literal IPv4 or IPv6 address; null for anything else (never a name lookup). */
  static byte[] literal(String address) {
    if (address == null) return null;
    String a = unbracket(address.strip());
    int zone = a.indexOf('%');
    if (zone > 0) a = a.substring(0, zone);
    if (a.isEmpty()) return null;
    if (a.indexOf(':') >= 0) {
      if (!a.matches("[0-9A-Fa-f:.]+")) return null;
    } else if (!a.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
      return null;
    }
    try {
      byte[] bytes = InetAddress.getByName(a).getAddress();   // a literal: parsed, not looked up
      // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is that IPv4 address: Java already returns 4 bytes for it.
      return bytes;
    } catch (UnknownHostException e) {
      return null;
    }
  }

  private static String canonical(String address) {
    InetAddress a = inet(address);
    return a == null ? address : a.getHostAddress();
  }

  private static String unbracket(String host) {
    if (host == null) return null;
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static String unquote(String v) {
    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
  }

  private static String first(String list) {
    if (list == null) return null;
    String f = list.split(",", 2)[0].strip();
    return f.isEmpty() ? null : f;
  }

  /** One CIDR block. */
  record Block(byte[] network, int prefix, String text) {
    static Block parse(String entry) {
      String address = entry;
      int slash = entry.indexOf('/');
      byte[] bytes = literal(slash < 0 ? entry : entry.substring(0, slash));
      if (bytes == null) {
        throw new IllegalArgumentException("'" + entry + "' is not an IPv4 or IPv6 address or CIDR block "
            + "(like 10.0.0.0/8 or fd00::/8; names are not accepted)");
      }
      int max = bytes.length * 8;
      int prefix = max;
      if (slash >= 0) {
        address = entry.substring(0, slash);
        try {
          prefix = Integer.parseInt(entry.substring(slash + 1).strip());
        } catch (NumberFormatException e) {
          prefix = -1;
        }
        if (prefix < 0 || prefix > max) {
          throw new IllegalArgumentException("'" + entry + "': the prefix length must be 0 to " + max);
        }
      }
      return new Block(bytes, prefix, canonical(address.strip()) + "/" + prefix);
    }

    boolean contains(byte[] address) {
      if (address.length != network.length) return false;
      int full = prefix / 8;
      for (int i = 0; i < full; i++) {
        if (address[i] != network[i]) return false;
      }
      int rest = prefix % 8;
      if (rest == 0) return true;
      int mask = (0xFF << (8 - rest)) & 0xFF;
      return (address[full] & mask) == (network[full] & mask);
    }

    @Override
    public String toString() {
      return text;
    }
  }
}
