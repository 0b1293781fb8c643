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
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The reactive client's trust: the CA file's certificates (or the JDK's trusted CAs), delegating to the JDK's
 * own checks (chain, and the host name under verify-full). It keeps why the last check failed, because the
 * reactive client reports only "SSL handshake failed" and {@link ConnectFailure} must say what to change.
 * Built when the URL is read (before Vert.x runs), so no handshake reads a file.
 */
final class TlsTrust extends X509ExtendedTrustManager {

  private final X509ExtendedTrustManager delegate;
  private final AtomicReference<String> lastFailure = new AtomicReference<>();

  private TlsTrust(X509ExtendedTrustManager delegate) {
    this.delegate = delegate;
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
        if (tm instanceof X509ExtendedTrustManager x) return new TlsTrust(x);
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
    } catch (CertificateException e) {
      throw note(e);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    try {
      delegate.checkServerTrusted(chain, authType, socket);
    } catch (CertificateException e) {
      throw note(e);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    try {
      delegate.checkServerTrusted(chain, authType);
    } catch (CertificateException e) {
      throw note(e);
    }
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
