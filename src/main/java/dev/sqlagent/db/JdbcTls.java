package dev.sqlagent.db;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Properties;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.postgresql.ssl.WrappedFactory;

/**
 * pgjdbc's TLS from the same material as the reactive client's: the trust of {@link TlsTrust} (the CA file, or
 * the JDK's CAs for {@code sslrootcert=system}) and the client certificate with its PKCS-8 key. pgjdbc
 * instantiates it per connection with the connection's properties ({@code sslfactoryarg}: the root
 * certificate and the host name to check, empty for no verification). pgjdbc is told verify-ca: the name is
 * checked by {@link TlsTrust} against {@code host} as libpq does, not against the address dialled.
 */
public final class JdbcTls extends WrappedFactory {

  /** One context per trust and key: pgjdbc makes a factory per connection, the files need reading once. */
  private static final java.util.concurrent.ConcurrentHashMap<String, javax.net.ssl.SSLSocketFactory> CONTEXTS =
      new java.util.concurrent.ConcurrentHashMap<>();

  public JdbcTls(Properties info) throws GeneralSecurityException, IOException {
    String id = info.getProperty("sslfactoryarg", "") + "\n" + info.getProperty("sslcert") + "\n" + info.getProperty("sslkey");
    javax.net.ssl.SSLSocketFactory cached = CONTEXTS.get(id);
    if (cached == null) {
      cached = create(info);
      CONTEXTS.putIfAbsent(id, cached);
    }
    factory = cached;
  }

  private static javax.net.ssl.SSLSocketFactory create(Properties info) throws GeneralSecurityException, IOException {
    // sslfactoryarg: "<root certificate>\n<host to find in the certificate, empty under verify-ca>", or empty
    String[] arg = info.getProperty("sslfactoryarg", "").split("\n", -1);
    String root = arg[0];
    String host = arg.length > 1 && !arg[1].isEmpty() ? arg[1] : null;
    TrustManager trust = root.isEmpty() ? new TrustAll() : host == null ? TlsTrust.of(root) : TlsTrust.of(root).forHost(host);
    String cert = info.getProperty("sslcert");
    String key = info.getProperty("sslkey");
    KeyManager[] keys = cert == null || key == null ? null : keyManagers(Path.of(cert), Path.of(key));
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(keys, new TrustManager[] {trust}, null);
    return ctx.getSocketFactory();
  }

  private static KeyManager[] keyManagers(Path certFile, Path pk8) throws GeneralSecurityException, IOException {
    Certificate[] chain;
    try (InputStream in = Files.newInputStream(certFile)) {
      chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new Certificate[0]);
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Files.readAllBytes(pk8));
    String alg = ((X509Certificate) chain[0]).getPublicKey().getAlgorithm();
    PrivateKey key = KeyFactory.getInstance(alg).generatePrivate(spec);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    char[] pw = new char[0];
    ks.setKeyEntry("client", key, pw, chain);
    KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    f.init(ks, pw);
    return f.getKeyManagers();
  }

  /** sslmode below verify-ca: encrypted, not verified, as libpq. */
  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
      // not a server
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
      // libpq's require, prefer and allow do not verify
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
