package dev.sqlagent.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.MultiMap;
import io.vertx.core.net.SocketAddress;
import org.junit.jupiter.api.Test;

/** Which address is the client: the peer, unless a trusted proxy forwarded for someone, and never a forged header. */
class TrustedProxiesTest {

  static final TrustedProxies PROXIES = TrustedProxies.parse("10.0.0.0/8, 192.168.1.7, fd00::/8");

  static MultiMap headers(String... nameValue) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    for (int i = 0; i < nameValue.length; i += 2) h.add(nameValue[i], nameValue[i + 1]);
    return h;
  }

  static String client(String peer, String... headers) {
    return PROXIES.client(SocketAddress.inetSocketAddress(40000, peer), headers(headers)).address();
  }

  @Test
  void blocksMatchIpv4AndIpv6AddressesAndNothingElse() {
    assertThat(PROXIES.trusts("10.1.2.3")).isTrue();
    assertThat(PROXIES.trusts("11.0.0.1")).isFalse();
    assertThat(PROXIES.trusts("192.168.1.7")).isTrue();
    assertThat(PROXIES.trusts("192.168.1.8")).isFalse();
    assertThat(PROXIES.trusts("fd12::1")).isTrue();
    assertThat(PROXIES.trusts("[fd12::1]")).isTrue();
    assertThat(PROXIES.trusts("fe80::1")).isFalse();
    assertThat(PROXIES.trusts("::ffff:10.0.0.1")).as("an IPv4-mapped address is that IPv4 address").isTrue();
    assertThat(PROXIES.trusts("proxy.internal")).as("no name lookups").isFalse();
    assertThat(TrustedProxies.parse("172.16.0.0/12").trusts("172.31.255.255")).isTrue();
    assertThat(TrustedProxies.parse("172.16.0.0/12").trusts("172.32.0.0")).isFalse();
    assertThat(TrustedProxies.parse("").configured()).isFalse();
  }

  @Test
  void aBadEntryIsNamed() {
    assertThatThrownBy(() -> TrustedProxies.parse("10.0.0.0/8, proxy.internal")).hasMessageContaining("'proxy.internal'");
    assertThatThrownBy(() -> TrustedProxies.parse("10.0.0.0/33")).hasMessageContaining("0 to 32");
    assertThatThrownBy(() -> TrustedProxies.parse("fd00::/129")).hasMessageContaining("0 to 128");
  }

  @Test
  void theHeadersOfAnUntrustedPeerChangeNothing() {
    assertThat(client("203.0.113.9", "X-Forwarded-For", "1.2.3.4")).isEqualTo("203.0.113.9");
    assertThat(client("203.0.113.9", "Forwarded", "for=1.2.3.4")).isEqualTo("203.0.113.9");
    assertThat(PROXIES.forwardedOrigin(SocketAddress.inetSocketAddress(1, "203.0.113.9"),
        headers("X-Forwarded-Host", "evil.example", "X-Forwarded-Proto", "https"))).isNull();
  }

  @Test
  void behindTrustedProxiesTheClientIsTheRightMostAddressNotItselfAProxy() {
    assertThat(client("10.0.0.5", "X-Forwarded-For", "198.51.100.7")).isEqualTo("198.51.100.7");
    // The client forged a left-most entry: the proxy appended the real one, which wins.
    assertThat(client("10.0.0.5", "X-Forwarded-For", "1.1.1.1, 198.51.100.7")).isEqualTo("198.51.100.7");
    // Two proxies: the inner one's address is skipped.
    assertThat(client("10.0.0.5", "X-Forwarded-For", "198.51.100.7, 10.0.0.9")).isEqualTo("198.51.100.7");
    assertThat(client("10.0.0.5", "X-Forwarded-For", "198.51.100.7", "X-Forwarded-For", "10.0.0.9")).isEqualTo("198.51.100.7");
    // Forwarded (RFC 7239), IPv6 with a port, quoted.
    assertThat(client("10.0.0.5", "Forwarded", "for=192.0.2.60;proto=https;by=10.0.0.5, for=\"[2001:db8:cafe::17]:4711\""))
        .isEqualTo("2001:db8:cafe:0:0:0:0:17");
    assertThat(client("fd00::5", "X-Forwarded-For", "192.0.2.1:5555")).isEqualTo("192.0.2.1");
    // Nothing forwarded, or an obfuscated hop: the last address a trusted hop vouches for.
    assertThat(client("10.0.0.5")).isEqualTo("10.0.0.5");
    assertThat(client("10.0.0.5", "X-Forwarded-For", "unknown")).isEqualTo("10.0.0.5");
    assertThat(client("10.0.0.5", "Forwarded", "for=_hidden, for=10.0.0.9")).isEqualTo("10.0.0.9");
  }

  @Test
  void aTrustedProxyNamesTheOriginTheBrowserUsed() {
    SocketAddress proxy = SocketAddress.inetSocketAddress(1, "10.0.0.5");
    assertThat(PROXIES.forwardedOrigin(proxy, headers("X-Forwarded-Host", "Agent.Example", "X-Forwarded-Proto", "https")))
        .isEqualTo(new TrustedProxies.Origin("https", "agent.example"));
    assertThat(PROXIES.forwardedOrigin(proxy, headers("Forwarded", "for=1.2.3.4;host=agent.example;proto=https")))
        .isEqualTo(new TrustedProxies.Origin("https", "agent.example"));
    assertThat(PROXIES.forwardedOrigin(proxy, headers("X-Forwarded-Proto", "https"))).as("no host: nothing to say").isNull();
  }
}
