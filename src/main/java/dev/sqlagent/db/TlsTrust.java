package dev.sqlagent.db;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Both clients' trust: the CA file's certificates (or the JDK's trusted CAs) checked by the JDK, then, under
 * verify-full, the host name checked here as libpq checks it: against {@code host}, never {@code hostaddr}
 * (the libraries would check the address they dial). It keeps why the last check failed, because the reactive
 * client reports only "SSL handshake failed" and {@link ConnectFailure} must say what to change. The CA file
 * is read when the URL is read (before Vert.x runs), so no handshake reads a file.
 */
final class TlsTrust extends X509ExtendedTrustManager {

  private final X509ExtendedTrustManager delegate;
  /** The name the certificate must carry (verify-full), or null (verify-ca). */
  private final String host;
  private final AtomicReference<String> lastFailure;

  private TlsTrust(X509ExtendedTrustManager delegate, String host, AtomicReference<String> lastFailure) {
    this.delegate = delegate;
    this.host = host;
    this.lastFailure = lastFailure;
  }

  /** The same trust, also checking that the certificate names {@code host} (verify-full). */
  TlsTrust forHost(String host) {
    return new TlsTrust(delegate, host, lastFailure);
  }

  /** {@code rootCert}: a PEM file of one or more CA certificates, or {@code system}. */
  static TlsTrust of(String rootCert) {
    try {
      TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if ("system".equals(rootCert)) {
        f.init((KeyStore) null);
      } else {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(Path.of(rootCert))) {
          int i = 0;
          for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
            ks.setCertificateEntry("ca" + i++, c);
          }
          if (i == 0) throw new IllegalArgumentException("sslrootcert file '" + rootCert + "' holds no certificate");
        }
        f.init(ks);
      }
      for (TrustManager tm : f.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) return new TlsTrust(x, null, new AtomicReference<>());
      }
      throw new IllegalStateException("the JDK offers no X.509 trust manager");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("sslrootcert file '" + rootCert + "' is not a PEM certificate file: " + e.getMessage());
    }
  }

  /** Why the last handshake was refused, or null; cleared by reading. */
  String takeFailure() {
    return lastFailure.getAndSet(null);
  }

  private <T extends Exception> T note(T e) {
    lastFailure.set(e.getMessage());
    return e;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    try {
      delegate.checkServerTrusted(chain, authType, engine);
      checkName(chain[0]);
    } catch (CertificateException e) {
      throw note(e);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    try {
      delegate.checkServerTrusted(chain, authType, socket);
      checkName(chain[0]);
    } catch (CertificateException e) {
      throw note(e);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    try {
      delegate.checkServerTrusted(chain, authType);
      checkName(chain[0]);
    } catch (CertificateException e) {
      throw note(e);
    }
  }

  /**
   * libpq's rule (fe-secure-common.c): the subjectAltName DNS names (a leading {@code *.} matches one label) or
   * IP addresses; the common name only when the certificate has no DNS name at all.
   */
  private void checkName(X509Certificate cert) throws CertificateException {
    if (host == null) return;
    List<String> names = new ArrayList<>();
    boolean hasDns = false;
    boolean ip = host.matches("[0-9.]+") || host.contains(":");
    Collection<List<?>> sans = cert.getSubjectAlternativeNames();
    if (sans != null) {
      for (List<?> san : sans) {
        int type = (Integer) san.get(0);
        String value = String.valueOf(san.get(1));
        if (type == 2) {
          hasDns = true;
          names.add(value);
          if (!ip && dnsMatches(value, host)) return;
        } else if (type == 7) {
          names.add(value);
          if (ip && sameAddress(value, host)) return;
        }
      }
    }
    if (!hasDns) {
      String cn = commonName(cert);
      if (cn != null) {
        names.add(cn);
        if (ip ? sameAddress(cn, host) : dnsMatches(cn, host)) return;
      }
    }
    throw new CertificateException("the server's certificate does not name host " + host + " (it names "
        + (names.isEmpty() ? "nothing" : String.join(", ", names)) + ")");
  }

  private static boolean dnsMatches(String pattern, String host) {
    String p = pattern.toLowerCase(Locale.ROOT);
    String h = host.toLowerCase(Locale.ROOT);
    if (p.startsWith("*.")) {
      int dot = h.indexOf('.');
      return dot > 0 && h.substring(dot).equals(p.substring(1));
    }
    return p.equals(h);
  }

  private static boolean sameAddress(String a, String b) {
    try {
      return java.net.InetAddress.getByName(a).equals(java.net.InetAddress.getByName(b));
    } catch (java.net.UnknownHostException e) {
      return false;  // literals only: nothing is resolved
    }
  }

  private static String commonName(X509Certificate cert) {
    try {
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) return String.valueOf(rdn.getValue());
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
