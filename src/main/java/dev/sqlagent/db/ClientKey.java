package dev.sqlagent.db;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;

/**
 * A client certificate's private key in the two forms the clients read: PEM for the reactive client
 * (PemKeyCertOptions) and PKCS-8 DER for pgjdbc (its LibPQFactory reads only {@code .pk8} or {@code .p12}).
 * libpq users have PEM ({@code postgresql.key}, PKCS-1 or PKCS-8) or sometimes a {@code .pk8}; the missing
 * form is written once, owner-only, to a temporary file deleted when the JVM exits. Read at configuration
 * time, before Vert.x runs.
 */
record ClientKey(Path pem, Path pk8) {

  private static final byte[] RSA_PKCS8_PREFIX = {
      // AlgorithmIdentifier rsaEncryption with NULL parameters, inside PrivateKeyInfo version 0
      0x02, 0x01, 0x00, 0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01,
      0x01, 0x05, 0x00};

  static ClientKey read(Path file, String password) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("sslkey file '" + file + "' cannot be read: " + e.getMessage());
    }
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    if (!text.contains("-----BEGIN")) {
      // DER: take it for PKCS-8 as pgjdbc does, and give the reactive client its PEM
      return new ClientKey(temp(pemOf("PRIVATE KEY", bytes), ".key"), file);
    }
    if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
      // PKCS-8 encrypted with sslpassword: decrypted once here, both clients then read the plain copy
      if (password == null) {
        throw new IllegalArgumentException("sslkey file '" + file + "' is encrypted: give its passphrase as sslpassword");
      }
      byte[] plain = decrypt(der(text, "ENCRYPTED PRIVATE KEY"), password, file);
      return new ClientKey(temp(pemOf("PRIVATE KEY", plain), ".key"), temp(plain, ".pk8"));
    }
    if (text.contains("Proc-Type: 4,ENCRYPTED")) {
      throw new IllegalArgumentException("sslkey file '" + file + "' is encrypted in the old OpenSSL form, which "
          + "sql-agent does not read: convert it to PKCS-8 (openssl pkcs8 -topk8 -in key -out key.p8, then sslpassword)");
    }
    if (text.contains("-----BEGIN PRIVATE KEY-----")) {
      return new ClientKey(file, temp(der(text, "PRIVATE KEY"), ".pk8"));
    }
    if (text.contains("-----BEGIN RSA PRIVATE KEY-----")) {
      byte[] pkcs8 = rsaToPkcs8(der(text, "RSA PRIVATE KEY"));
      return new ClientKey(file, temp(pkcs8, ".pk8"));
    }
    throw new IllegalArgumentException("sslkey file '" + file + "' is not a PEM private key sql-agent reads (PKCS-8 "
        + "or RSA): convert it with openssl pkcs8 -topk8 -nocrypt -in key -out key.pk8.pem");
  }

  private static byte[] decrypt(byte[] der, String password, Path file) {
    try {
      javax.crypto.EncryptedPrivateKeyInfo info = new javax.crypto.EncryptedPrivateKeyInfo(der);
      // PBES2 (OpenSSL 3's default) names its real scheme in the parameters, e.g. PBEWithHmacSHA256AndAES_256
      String alg = info.getAlgName().equals("PBES2") || info.getAlgName().equals("1.2.840.113549.1.5.13")
          ? info.getAlgParameters().toString() : info.getAlgName();
      javax.crypto.SecretKeyFactory f = javax.crypto.SecretKeyFactory.getInstance(alg);
      javax.crypto.SecretKey key = f.generateSecret(new javax.crypto.spec.PBEKeySpec(password.toCharArray()));
      javax.crypto.Cipher cipher = javax.crypto.Cipher.getInstance(alg);
      cipher.init(javax.crypto.Cipher.DECRYPT_MODE, key, info.getAlgParameters());
      return info.getKeySpec(cipher).getEncoded();
    } catch (java.security.GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("sslkey file '" + file + "' cannot be decrypted with sslpassword (wrong "
          + "passphrase, or a cipher the JDK lacks): " + e.getMessage());
    }
  }

  private static byte[] der(String pem, String label) {
    int start = pem.indexOf("-----BEGIN " + label + "-----") + ("-----BEGIN " + label + "-----").length();
    int end = pem.indexOf("-----END " + label + "-----");
    return Base64.getMimeDecoder().decode(pem.substring(start, end));
  }

  private static byte[] pemOf(String label, byte[] der) {
    String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return ("-----BEGIN " + label + "-----\n" + b64 + "\n-----END " + label + "-----\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** PKCS-1 RSAPrivateKey wrapped as PKCS-8 PrivateKeyInfo. */
  static byte[] rsaToPkcs8(byte[] pkcs1) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(RSA_PKCS8_PREFIX);
    body.write(0x04);
    body.writeBytes(length(pkcs1.length));
    body.writeBytes(pkcs1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0x30);
    out.writeBytes(length(body.size()));
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  private static byte[] length(int n) {
    if (n < 0x80) return new byte[] {(byte) n};
    if (n < 0x100) return new byte[] {(byte) 0x81, (byte) n};
    if (n < 0x10000) return new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n};
    return new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
  }

  private static Path temp(byte[] content, String suffix) {
    try {
      Path p = Files.createTempFile("sql-agent-key", suffix,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      p.toFile().deleteOnExit();
      Files.write(p, content);
      return p;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot write the client key in the form the database client reads: " + e.getMessage());
    }
  }
}
